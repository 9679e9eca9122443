import Domain

/// Order documents written directly into bytes: an `Order` `{id, user_id,
/// status, items, total, created_at, checkout_id, shipping_address}`
/// (`checkout_id`, `shipping_address` and the address's `phone` and
/// `email` left out when nil, as their synthesized `Codable` does), an `OrderWithPayment` (the
/// same members, then `payment`, null when there is none) and a page of
/// them `{items, next_cursor}`: every `POST /checkout` answer is one, and
/// `OrderedJSONEncoder` (keyed containers, generic metadata look-ups) made
/// it a visible share of a checkout's CPU. `OrderJSONTests` check that
/// these are byte for byte what `JSONBody.encode` writes.
enum OrderJSON {
    static func bytes(_ order: Order) -> [UInt8] {
        var json = JSONBytes(capacity: capacity(order))
        writeMembers(of: order, to: &json)
        json.raw("}")
        return json.bytes
    }

    static func bytes(_ order: OrderWithPayment) -> [UInt8] {
        var json = JSONBytes(capacity: capacity(order.order) + PaymentJSON.capacity(order.payment))
        write(order, to: &json)
        return json.bytes
    }

    /// The `GET /orders` page.
    static func page(_ page: Page<OrderWithPayment>) -> [UInt8] {
        var json = JSONBytes(capacity: page.items.reduce(48) { $0 + capacity($1.order) + PaymentJSON.capacity($1.payment) })
        json.page(page.items, nextCursor: page.nextCursor) { write($0, to: &$1) }
        return json.bytes
    }

    /// The order's members and `payment` in one object, as
    /// `OrderWithPayment.encode(to:)` writes them into one container.
    private static func write(_ order: OrderWithPayment, to json: inout JSONBytes) {
        writeMembers(of: order.order, to: &json)
        json.raw(",\"payment\":")
        if let payment = order.payment { PaymentJSON.write(payment, to: &json) } else { json.raw("null") }
        json.raw("}")
    }

    /// `{` and the order's members, without the closing brace.
    private static func writeMembers(of order: Order, to json: inout JSONBytes) {
        json.raw("{\"id\":")
        json.rawString(order.id.description)
        json.raw(",\"user_id\":")
        json.rawString(order.userID.description)
        json.raw(",\"status\":")
        json.rawString(order.status.rawValue)
        json.raw(",\"items\":[")
        for (index, line) in order.lines.enumerated() {
            if index > 0 { json.raw(",") }
            json.pricedLine(line.productID, name: line.name, quantity: line.quantity, unitPrice: line.unitPrice,
                            lineTotal: line.lineTotal)
        }
        json.raw("],\"total\":")
        json.money(order.total)
        json.raw(",\"created_at\":")
        json.timestamp(order.createdAt)
        if let checkout = order.checkoutID {
            json.raw(",\"checkout_id\":")
            json.rawString(checkout.description)
        }
        if let address = order.shippingAddress {
            json.raw(",\"shipping_address\":")
            write(address, to: &json)
        }
    }

    private static func write(_ address: ShippingAddress, to json: inout JSONBytes) {
        json.raw("{\"name\":")
        json.string(address.name)
        json.raw(",\"lines\":[")
        for (index, line) in address.lines.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(line)
        }
        json.raw("],\"city\":")
        json.string(address.city)
        json.raw(",\"postal_code\":")
        json.string(address.postalCode)
        json.raw(",\"country\":")
        json.string(address.country)
        if let phone = address.phone {
            json.raw(",\"phone\":")
            json.string(phone)
        }
        if let email = address.email {
            json.raw(",\"email\":")
            json.string(email)
        }
        json.raw("}")
    }

    /// About 300 bytes of members around the lines, about 170 per line
    /// besides its name: one allocation for a usual order.
    private static func capacity(_ order: Order) -> Int {
        order.lines.reduce(order.shippingAddress == nil ? 320 : 720) { $0 + 176 + $1.name.utf8.count }
    }
}

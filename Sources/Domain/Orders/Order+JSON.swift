import Formats

/// An order as JSON, written once for both its uses: the document stored
/// for it and the body served for it (where an `OrderWithPayment` adds
/// `payment` after these members). Members in declaration order `{id,
/// user_id, status, items, total, created_at, checkout_id,
/// shipping_address}`, `checkout_id`, `shipping_address` and the
/// address's `phone` and `email` left out when nil, as the synthesized
/// `Codable` conformances do; `Order(json:)` reads it back.
extension Order {
    public var json: [UInt8] {
        var json = JSONBytes(capacity: jsonCapacity)
        json.orderMembers(self)
        json.raw("}")
        return json.bytes
    }

    /// About 300 bytes of members around the lines, about 170 per line
    /// besides its name: one allocation for a usual order.
    public var jsonCapacity: Int {
        lines.reduce(shippingAddress == nil ? 320 : 720) { $0 + 176 + $1.name.utf8.count }
    }
}

extension JSONBytes {
    /// `{` and the order's members, without the closing brace.
    public mutating func orderMembers(_ order: Order) {
        raw("{\"id\":")
        rawString(order.id.description)
        raw(",\"user_id\":")
        rawString(order.userID.description)
        raw(",\"status\":")
        rawString(order.status.rawValue)
        raw(",\"items\":[")
        for (index, line) in order.lines.enumerated() {
            if index > 0 { raw(",") }
            pricedLine(line.productID, name: line.name, quantity: line.quantity, unitPrice: line.unitPrice,
                       lineTotal: line.lineTotal)
        }
        raw("],\"total\":")
        money(order.total)
        raw(",\"created_at\":")
        timestamp(order.createdAt)
        if let checkout = order.checkoutID {
            raw(",\"checkout_id\":")
            rawString(checkout.description)
        }
        if let address = order.shippingAddress {
            raw(",\"shipping_address\":")
            shippingAddress(address)
        }
    }

    private mutating func shippingAddress(_ address: ShippingAddress) {
        raw("{\"name\":")
        string(address.name)
        raw(",\"lines\":[")
        for (index, line) in address.lines.enumerated() {
            if index > 0 { raw(",") }
            string(line)
        }
        raw("],\"city\":")
        string(address.city)
        raw(",\"postal_code\":")
        string(address.postalCode)
        raw(",\"country\":")
        string(address.country)
        if let phone = address.phone {
            raw(",\"phone\":")
            string(phone)
        }
        if let email = address.email {
            raw(",\"email\":")
            string(email)
        }
        raw("}")
    }
}

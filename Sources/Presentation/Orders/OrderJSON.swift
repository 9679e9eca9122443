import Domain
import Formats

/// Order bodies: an `Order` is `Order.json`, the bytes stored for it; an
/// `OrderWithPayment` is the same members, then `payment` (null when
/// there is none); a page of them is `{items, next_cursor}`. Every
/// `POST /checkout` answer is one. `OrderJSONTests` check that these are
/// byte for byte what `JSONBody.encode` writes.
enum OrderJSON {
    static func bytes(_ order: Order) -> [UInt8] {
        order.json
    }

    static func bytes(_ order: OrderWithPayment) -> [UInt8] {
        var json = JSONBytes(capacity: order.order.jsonCapacity + PaymentJSON.capacity(order.payment))
        write(order, to: &json)
        return json.bytes
    }

    /// The `GET /orders` page.
    static func page(_ page: Page<OrderWithPayment>) -> [UInt8] {
        var json = JSONBytes(capacity: page.items.reduce(48) { $0 + $1.order.jsonCapacity + PaymentJSON.capacity($1.payment) })
        json.page(page.items, nextCursor: page.nextCursor) { write($0, to: &$1) }
        return json.bytes
    }

    /// The order's members and `payment` in one object, as
    /// `OrderWithPayment.encode(to:)` writes them into one container.
    private static func write(_ order: OrderWithPayment, to json: inout JSONBytes) {
        json.orderMembers(order.order)
        json.raw(",\"payment\":")
        if let payment = order.payment { PaymentJSON.write(payment, to: &json) } else { json.raw("null") }
        json.raw("}")
    }
}

import Domain
import Formats

/// Order bodies: an `Order` is `Order.json`, the bytes stored for it; an
/// `OrderWithPayment` is `OrderWithPayment.json`, the same members, then
/// `payment` (null when there is none); a page of them is `{items,
/// next_cursor}`. Every `POST /checkout` answer is one. `OrderJSONTests`
/// check that these are byte for byte what `JSONBody.encode` writes.
enum OrderJSON {
    static func bytes(_ order: Order) -> [UInt8] {
        order.json
    }

    static func bytes(_ order: OrderWithPayment) -> [UInt8] {
        order.json
    }

    /// The `GET /orders` page.
    static func page(_ page: Page<OrderWithPayment>) -> [UInt8] {
        var json = JSONBytes(capacity: page.items.reduce(48) { $0 + $1.jsonCapacity })
        json.page(page.items, nextCursor: page.nextCursor) {
            $1.orderWithPaymentMembers($0)
            $1.raw("}")
        }
        return json.bytes
    }
}

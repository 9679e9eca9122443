import Formats

/// The body of an event as every endpoint is sent it (Standard Webhooks'
/// `{type, timestamp, data}`): `timestamp` is when the change happened
/// (RFC 3339, UTC, milliseconds) and `data` the resource as the API shows
/// it, with what the event adds (`amount` for `order.refunded`,
/// `threshold` for `product.stock_low`) and `version`, which grows with
/// each change of one resource (its event job's id): a receiver keeps the
/// highest version per resource and drops an older one that arrives late.
public enum WebhookPayload {
    /// An order's event: the order with its payment, as `GET /orders/{id}`.
    public static func order(_ event: WebhookEvent, _ order: OrderWithPayment, version: Int64) -> [UInt8] {
        body(event, version: version, capacity: order.jsonCapacity) { $0.orderWithPaymentMembers(order) }
    }

    /// A product's event: the product as `GET /admin/products/{id}` shows it (its threshold too).
    public static func product(_ event: WebhookEvent, _ product: Product, version: Int64) -> [UInt8] {
        body(event, version: version, capacity: product.jsonCapacity) {
            $0.productMembers(product, threshold: true)
        }
    }

    /// A customer's event: the user, as `GET /users` lists them.
    public static func customer(_ event: WebhookEvent, _ user: User, version: Int64) -> [UInt8] {
        body(event, version: version, capacity: 320 + user.name.utf8.count) { $0.userMembers(user) }
    }

    private static func body(_ event: WebhookEvent, version: Int64, capacity: Int,
                             _ members: (inout JSONBytes) -> Void) -> [UInt8] {
        var json = JSONBytes(capacity: capacity + 160)
        json.raw("{\"type\":")
        json.rawString(event.type.rawValue)
        json.raw(",\"timestamp\":")
        json.timestamp(Timestamp(millisecondsSince1970: event.occurredAt))
        json.raw(",\"data\":")
        members(&json)
        if let amount = event.amount {
            json.raw(",\"amount\":")
            json.money(amount)
        }
        if let threshold = event.threshold {
            json.raw(",\"threshold\":")
            json.integer(threshold)
        }
        json.raw(",\"version\":")
        json.integer(version)
        json.raw("}}")
        return json.bytes
    }
}

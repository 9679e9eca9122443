import Formats

/// An order with its payment as JSON: the order's members (`Order.json`),
/// then `payment` (null when there is none), as
/// `OrderWithPayment.encode(to:)` writes them into one container. Written
/// once for the body `GET /orders/{id}` serves and the `data` of an order's
/// webhook event.
extension OrderWithPayment {
    public var json: [UInt8] {
        var json = JSONBytes(capacity: jsonCapacity)
        json.orderWithPaymentMembers(self)
        json.raw("}")
        return json.bytes
    }

    public var jsonCapacity: Int { order.jsonCapacity + (payment?.jsonCapacity ?? 16) }
}

extension JSONBytes {
    /// `{`, the order's members and `payment`, without the closing brace.
    public mutating func orderWithPaymentMembers(_ order: OrderWithPayment) {
        orderMembers(order.order)
        raw(",\"payment\":")
        if let payment = order.payment { self.payment(payment) } else { raw("null") }
    }
}

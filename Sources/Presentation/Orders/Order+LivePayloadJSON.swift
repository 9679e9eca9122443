import Domain

/// `order.created` and `order.updated`: the order as `GET /orders/{id}` shows it.
extension Order: LivePayloadJSON {
    func liveJSON() -> [UInt8] { OrderJSON.bytes(self) }
}

extension OrderWithPayment: LivePayloadJSON {
    func liveJSON() -> [UInt8] { OrderJSON.bytes(self) }
}

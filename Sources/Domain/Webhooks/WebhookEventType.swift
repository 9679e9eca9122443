/// What happened, as the merchant's systems subscribe to it: an endpoint
/// names the types it wants (none named: every type).
public enum WebhookEventType: String, Codable, Sendable, Hashable, CaseIterable {
    case orderCreated = "order.created"
    case orderPaid = "order.paid"
    case orderShipped = "order.shipped"
    case orderCancelled = "order.cancelled"
    case orderRefunded = "order.refunded"
    case orderRefundOwed = "order.refund_owed"
    case paymentFailed = "payment.failed"
    case productCreated = "product.created"
    case productUpdated = "product.updated"
    case productStockLow = "product.stock_low"
    case customerCreated = "customer.created"
}

/// The provider events that change a payment. Any other type is
/// acknowledged and ignored (providers add event types over time).
public enum PaymentEventType: String, Hashable, Sendable, Codable, CaseIterable {
    case paymentSucceeded = "payment.succeeded"
    case paymentFailed = "payment.failed"
    case refundSucceeded = "refund.succeeded"
    case chargebackCreated = "chargeback.created"
}

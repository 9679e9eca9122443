/// Where a payment is in its life. The payment is the authority on money;
/// its order follows it (see `PaymentStatus.orderFollows`):
///
/// | from             | event                     | to             |
/// |------------------|---------------------------|----------------|
/// | requires_payment | provider or manual success| succeeded      |
/// | requires_payment | provider failure          | failed         |
/// | requires_payment | `payment_timeout` passed  | expired        |
/// | requires_payment | order cancelled           | cancelled      |
/// | succeeded        | order cancelled           | refund_pending |
/// | failed, expired, cancelled | provider success (late) | refund_pending |
/// | refund_pending   | provider refund           | refunded       |
///
/// A late success is recorded, not refused: providers do deliver a success
/// after the shop gave up on the payment, and the money has then been taken;
/// refusing it would lose that money silently. The order stays cancelled
/// and the payment says a refund is owed.
public enum PaymentStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case requiresPayment = "requires_payment"
    case succeeded
    case failed
    case expired
    case cancelled
    case refundPending = "refund_pending"
    case refunded

    /// The order status a payment in this status implies: paid → confirmed,
    /// waiting → pending, anything else → cancelled.
    public var orderFollows: OrderStatus {
        switch self {
        case .requiresPayment: .pending
        case .succeeded: .confirmed
        case .failed, .expired, .cancelled, .refundPending, .refunded: .cancelled
        }
    }

    /// The money was never taken, or was given back: no refund is owed.
    public var isClosedWithoutMoney: Bool {
        self == .failed || self == .expired || self == .cancelled || self == .refunded
    }
}

/// Where a payment is in its life. The payment is the authority on money;
/// its order follows it (see `PaymentStatus.orderFollows`). Money moves
/// through the ledger (`Payment.recording`), and the status follows:
///
/// | from             | event                          | to             |
/// |------------------|--------------------------------|----------------|
/// | requires_payment | provider or manual payment     | succeeded      |
/// | requires_payment | provider decline               | requires_payment |
/// | requires_payment | its deadline passed            | expired        |
/// | requires_payment | order cancelled                | cancelled      |
/// | succeeded        | order cancelled (money kept)   | refund_pending |
/// | succeeded        | order cancelled (all returned) | refunded       |
/// | expired, cancelled, refunded | a payment (late)   | refund_pending |
/// | refund_pending   | refunds reach what was paid    | refunded       |
///
/// A late or second payment is recorded, not refused: providers do deliver
/// a success after the shop gave up on the payment, and bank transfers
/// arrive late; the money has then been taken, and refusing it would lose
/// it silently. The order stays as it is and the payment says what is owed
/// back (`Payment.refundOwed`). `failed` is what a decline did before
/// declines could be retried; only payments stored then have it.
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
}

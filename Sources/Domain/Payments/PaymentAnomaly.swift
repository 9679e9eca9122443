/// A provider's refund or chargeback the ledger could not take as it came:
/// more than is left of what was paid (`exceeds_paid`), in another
/// currency (`currency_mismatch`) or of no positive amount (`invalid_amount`). The event is acknowledged (a provider
/// would otherwise retry it for days) and kept here for an admin, never
/// applied past the paid amount. One beyond what was paid is held: money
/// coming in later (the charge it refunds, delivered after it) applies it
/// then, so events in any order still end where they would in order.
public struct PaymentAnomaly: Hashable, Sendable {
    public enum Reason: String, Hashable, Sendable, Codable, CaseIterable {
        case exceedsPaid = "exceeds_paid"
        case currencyMismatch = "currency_mismatch"
        case invalidAmount = "invalid_amount"
    }

    /// Numbered by the database as recorded.
    public let id: Int64
    public let paymentID: PaymentID
    public let orderID: OrderID
    public let movement: MoneyMovement
    public let reason: Reason
    /// What was left to refund when it came.
    public let refundable: Money
    public let recordedAt: Timestamp
    /// When later money let the ledger take it; nil while it is held.
    public let appliedAt: Timestamp?

    public init(id: Int64, paymentID: PaymentID, orderID: OrderID, movement: MoneyMovement, reason: Reason,
                refundable: Money, recordedAt: Timestamp, appliedAt: Timestamp?) {
        self.id = id
        self.paymentID = paymentID
        self.orderID = orderID
        self.movement = movement
        self.reason = reason
        self.refundable = refundable
        self.recordedAt = recordedAt
        self.appliedAt = appliedAt
    }
}

/// One row of the append-only ledger: a movement as recorded, with its
/// payment, order, time and whether it took the refunds beyond what was
/// paid (a provider refund or chargeback is recorded even then, because
/// the money moved; `exceedsPaid` flags it for a person to look at).
public struct LedgerEntry: Hashable, Sendable {
    /// Numbered by the database as recorded: one payment's entries in
    /// the order they happened.
    public let id: Int64
    public let paymentID: PaymentID
    public let orderID: OrderID
    public let movement: MoneyMovement
    public let recordedAt: Timestamp
    public let exceedsPaid: Bool

    public init(id: Int64, paymentID: PaymentID, orderID: OrderID, movement: MoneyMovement,
                recordedAt: Timestamp, exceedsPaid: Bool) {
        self.id = id
        self.paymentID = paymentID
        self.orderID = orderID
        self.movement = movement
        self.recordedAt = recordedAt
        self.exceedsPaid = exceedsPaid
    }
}

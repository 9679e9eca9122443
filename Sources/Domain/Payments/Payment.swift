/// A payment to be made for one order: the amount frozen from the order's
/// total, a deadline, and how far it got. Immutable: a change returns a new
/// payment (`applying(_:)`), following the `PaymentStatus` table.
public struct Payment: Hashable, Sendable, Identifiable {
    public let id: PaymentID
    public let orderID: OrderID
    public let userID: UserID
    public let status: PaymentStatus
    public let amount: Money
    public let method: PaymentMethod
    /// Unpaid at this instant, the system cancels the order.
    public let expiresAt: Timestamp
    /// What an admin recorded for a manual payment (a transfer's reference).
    public let reference: String?

    public init(id: PaymentID, orderID: OrderID, userID: UserID, status: PaymentStatus, amount: Money,
                method: PaymentMethod, expiresAt: Timestamp, reference: String?) {
        self.id = id
        self.orderID = orderID
        self.userID = userID
        self.status = status
        self.amount = amount
        self.method = method
        self.expiresAt = expiresAt
        self.reference = reference
    }

    /// A new payment waiting for the provider.
    public static func open(id: PaymentID, for order: Order, expiresAt: Timestamp) -> Payment {
        Payment(id: id, orderID: order.id, userID: order.userID, status: .requiresPayment, amount: order.total,
                method: .provider, expiresAt: expiresAt, reference: nil)
    }

    /// The payment after `change`; nil when the change has nothing left to do
    /// (it happened already, or it no longer matters: a failure reported for
    /// a payment that expired meanwhile). Throws `PaymentError.illegalTransition`
    /// for a change that cannot apply: a refund of a payment no refund is
    /// owed for, a manual payment of an order no longer waiting for one.
    public func applying(_ change: PaymentChange) throws(PaymentError) -> Payment? {
        switch (change, status) {
        case (.providerSucceeded, .requiresPayment):
            return with(.succeeded)
        case (.providerSucceeded, .failed), (.providerSucceeded, .expired), (.providerSucceeded, .cancelled):
            // Money taken for an order the shop gave up on: keep the record
            // and owe the refund (see `PaymentStatus`).
            return with(.refundPending)
        case (.providerSucceeded, _):
            return nil
        case (.providerFailed, .requiresPayment):
            return with(.failed)
        case (.providerFailed, _):
            return nil
        case (.refundSucceeded, .refundPending):
            return with(.refunded)
        case (.refundSucceeded, .refunded):
            return nil
        case (.refundSucceeded, _):
            throw .illegalTransition(id, from: status, to: .refunded)
        case (.expired, .requiresPayment):
            return with(.expired)
        case (.expired, _):
            return nil
        case (.orderCancelled, .requiresPayment):
            return with(.cancelled)
        case (.orderCancelled, .succeeded):
            return with(.refundPending)
        case (.orderCancelled, _):
            return nil
        case (.manualSucceeded(let reference), .requiresPayment):
            return Payment(id: id, orderID: orderID, userID: userID, status: .succeeded, amount: amount,
                           method: .manual, expiresAt: expiresAt, reference: reference)
        case (.manualSucceeded(let reference), .succeeded) where method == .manual && self.reference == reference:
            return nil
        case (.manualSucceeded, _):
            throw .illegalTransition(id, from: status, to: .succeeded)
        }
    }

    private func with(_ next: PaymentStatus) -> Payment {
        Payment(id: id, orderID: orderID, userID: userID, status: next, amount: amount, method: method,
                expiresAt: expiresAt, reference: reference)
    }
}

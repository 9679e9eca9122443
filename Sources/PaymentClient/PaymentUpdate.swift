import Domain

/// Published keyed by the payment's `UserID`, after the change committed.
public enum PaymentUpdate: Sendable, Hashable {
    /// `sequence`: the change's outbox row (the `/events` id), recorded only
    /// for a change its order does not follow (a refund, a late success on
    /// a cancelled order); the others' row is their order's change.
    case changed(Payment, from: PaymentStatus, sequence: Int64?)
    /// Another process made a change its order does not follow; this
    /// process read the payment as it is now.
    case changedElsewhere(Payment, sequence: Int64)
}

import Domain

public enum PaymentAction: Sendable {
    /// The payment for a newly placed order: waiting, its amount the order's
    /// total, due `payment_timeout` from now. Idempotent by order id (the
    /// existing payment is returned).
    case open(Order)
    /// A provider event whose signature was checked (`verify`). Applied once
    /// per event id.
    case apply(PaymentEvent)
    /// The order is being cancelled: a waiting payment is cancelled, a paid
    /// one owes a refund. Nil outcome for an order without a payment.
    case orderCancelled(OrderID)
    /// An admin recorded money received outside the provider.
    case recordManual(OrderID, reference: String)
    /// Expires up to `limit` unpaid payments whose deadline has passed.
    case expireDue(limit: Int)
    /// The payment's change to this status finished its work in the other
    /// clients. A newer change (another status) stays open for its own
    /// caller or reconciliation.
    case settle(PaymentID, PaymentStatus)
}

public enum PaymentOutcome: Sendable {
    case payment(Payment?)
    case receipt(PaymentReceipt)
    case payments([Payment])
}

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

/// What applying a provider event did.
public struct PaymentReceipt: Sendable, Hashable {
    public enum Effect: String, Sendable, Hashable {
        /// The payment changed.
        case applied
        /// Nothing to change: a decline (the payment stays payable).
        case unchanged
        /// This event id was applied before, or its movement (by the
        /// provider's reference) was recorded under another; nothing happened again.
        case duplicate
        /// Its refund or chargeback is more than is left of what was paid,
        /// or in another currency: kept as a `PaymentAnomaly`, the payment
        /// unchanged.
        case anomaly
    }

    public let payment: Payment
    public let effect: Effect

    public init(payment: Payment, effect: Effect) {
        self.payment = payment
        self.effect = effect
    }
}

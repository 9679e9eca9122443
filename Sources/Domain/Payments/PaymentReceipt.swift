/// What applying a provider event did.
public struct PaymentReceipt: Sendable, Hashable {
    public enum Effect: String, Sendable, Hashable {
        /// The payment changed.
        case applied
        /// The payment was already where the event would take it.
        case unchanged
        /// This event id was applied before; nothing happened again.
        case duplicate
    }

    public let payment: Payment
    public let effect: Effect

    public init(payment: Payment, effect: Effect) {
        self.payment = payment
        self.effect = effect
    }
}

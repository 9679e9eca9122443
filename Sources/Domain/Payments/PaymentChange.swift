/// What can happen to a payment; `Payment.applying(_:)` decides the result.
public enum PaymentChange: Hashable, Sendable {
    case providerSucceeded
    case providerFailed
    case refundSucceeded
    /// Its `expires_at` passed unpaid.
    case expired
    /// Its order was cancelled (by the customer or an admin).
    case orderCancelled
    /// An admin recorded money received outside the provider.
    case manualSucceeded(reference: String)

    /// The change a provider event asks for.
    public init(_ type: PaymentEventType) {
        switch type {
        case .paymentSucceeded: self = .providerSucceeded
        case .paymentFailed: self = .providerFailed
        case .refundSucceeded: self = .refundSucceeded
        }
    }
}

/// What can happen to a payment's life besides money moving;
/// `Payment.applying(_:)` decides the result (money: `MoneyMovement`).
public enum PaymentChange: Hashable, Sendable {
    /// Its `expires_at` passed unpaid.
    case expired
    /// Its order was cancelled (by the customer or an admin).
    case orderCancelled
    /// Its order is being shipped: only a paid payment allows it, and from
    /// then on the order is not cancelled by its payment.
    case fulfilling
}

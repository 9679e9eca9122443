import Domain

/// A change a signed-in user's live stream (`GET /events`) carries.
public enum LiveUpdate: Sendable {
    /// The user's cart changed (from any of their sessions), priced now.
    case cartChanged(CartQuote)
    case orderCreated(Order)
    /// The order or its payment changed; with the payment as read then.
    case orderChanged(OrderWithPayment)
}

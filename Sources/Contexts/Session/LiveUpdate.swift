import Domain

/// A change a signed-in user's live stream (`GET /events`) carries.
public enum LiveUpdate: Sendable {
    /// The user's cart changed (from any of their sessions), priced now.
    case cartChanged(CartQuote)
    case orderCreated(Order)
    /// The order or its payment changed; with the payment as read then.
    case orderChanged(OrderWithPayment)
    /// A change happened that the stream cannot show (its cart could not be
    /// priced, its order not read, storage away): the client must fetch
    /// the cart and orders again rather than believe it saw everything.
    case reset(reason: String)
}

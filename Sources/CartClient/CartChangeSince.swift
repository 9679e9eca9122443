import Domain

/// The answer of `CartClient.cartChange(of:after:through:)`.
public struct CartChangeSince: Sendable, Equatable {
    /// The newest change of the cart in the range.
    public let sequence: Int64
    /// The cart as stored when read: at least as new as that change.
    public let cart: Cart
}

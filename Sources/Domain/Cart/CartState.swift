/// The owned state of `CartClient`: one cart per user. An empty cart is not
/// stored; asking for it gives an empty one.
public struct CartState: Sendable, Equatable {
    public private(set) var carts: [UserID: Cart] = [:]

    public init() {}

    /// A state holding `carts` (loaded from storage), each validated.
    public init(carts: some Sequence<Cart>) throws {
        for cart in carts { try store(cart) }
    }

    /// The user's cart, empty when they have none.
    public func cart(for userID: UserID) -> Cart { carts[userID] ?? Cart(userID: userID) }

    /// Stores a valid cart as its user's (dropping it when empty).
    public mutating func store(_ cart: Cart) throws {
        _ = try cart.validated()
        carts[cart.userID] = cart.isEmpty ? nil : cart
    }

    /// Number of users with a non-empty cart.
    public var count: Int { carts.count }
}

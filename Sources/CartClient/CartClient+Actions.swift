import Axiom
import Domain

// What a context asks of the carts; each answers the user's cart after.

extension CartClient {
    /// Sets a line's quantity; with `unchangedFrom`, only while the cart is
    /// still that cart (`If-Match`).
    public struct SetQuantity: ClientAction {
        let user: UserID, product: ProductID, quantity: Int, unchangedFrom: Cart?
        public func run(on carts: isolated CartClient) async throws -> Cart {
            try await carts.write(.setQuantity(user, product, quantity, unchangedFrom: unchangedFrom))
        }
    }

    public struct Remove: ClientAction {
        let user: UserID, product: ProductID, unchangedFrom: Cart?
        public func run(on carts: isolated CartClient) async throws -> Cart {
            try await carts.write(.remove(user, product, unchangedFrom: unchangedFrom))
        }
    }

    public struct Clear: ClientAction {
        let user: UserID
        public func run(on carts: isolated CartClient) async throws -> Cart { try await carts.write(.clear(user)) }
    }

    /// Takes a finished checkout's ordered lines out, once per checkout.
    public struct ClearAfterCheckout: ClientAction {
        let user: UserID, checkoutID: CheckoutID, ordered: [CartLine]
        public func run(on carts: isolated CartClient) async throws -> Cart {
            try await carts.write(.clearAfterCheckout(user, checkoutID, ordered: ordered))
        }
    }
}

extension ClientAction where Self == CartClient.SetQuantity {
    public static func setQuantity(_ user: UserID, _ product: ProductID, _ quantity: Int,
                                   unchangedFrom: Cart? = nil) -> Self {
        Self(user: user, product: product, quantity: quantity, unchangedFrom: unchangedFrom)
    }
}

extension ClientAction where Self == CartClient.Remove {
    public static func remove(_ user: UserID, _ product: ProductID, unchangedFrom: Cart? = nil) -> Self {
        Self(user: user, product: product, unchangedFrom: unchangedFrom)
    }
}

extension ClientAction where Self == CartClient.Clear {
    public static func clear(_ user: UserID) -> Self { Self(user: user) }
}

extension ClientAction where Self == CartClient.ClearAfterCheckout {
    public static func clearAfterCheckout(_ user: UserID, _ checkoutID: CheckoutID, ordered: [CartLine]) -> Self {
        Self(user: user, checkoutID: checkoutID, ordered: ordered)
    }
}

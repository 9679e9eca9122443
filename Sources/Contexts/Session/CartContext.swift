import Axiom
import CartClient
import CatalogClient
import Domain

/// A session's cart feature (`/cart`): one cart per user, so every session
/// of the user sees the same one (the cart client is a singleton). Also the
/// pricing of a cart for its upstream context (checkout).
///
/// It holds no state of its own, so it is a plain immutable class, not an
/// actor: a cart write costs no hop here, only the cart client's own turn.
public final class CartContext: SessionFeature {
    public let identity: ContextIdentity
    public let caller: SessionCaller
    private let catalog: ClientHandle<CatalogClient>
    private let carts: ClientHandle<CartClient>
    private let pricing: CartPricing

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        caller = try SessionCaller.of(creation)
        catalog = try creation.client(CatalogClient.self)
        carts = try creation.client(CartClient.self)
        pricing = try CartPricing(creation)
    }

    /// The cart priced from the catalogue as it is now; lines whose product
    /// is gone or deactivated are listed apart and left out of the total.
    public func cart() async throws -> CartQuote {
        let user = try caller.current.user.id
        return try await quote(try await carts.call { try await $0.cart(for: user) })
    }

    /// Sets a line's quantity (1…99). The product must exist and be on sale:
    /// a deactivated one is `product_not_found`, as `GET /products/{id}`
    /// answers it, so a shopper cannot tell it from one that never existed.
    /// Pricing the stored cart cannot fail afterwards: a line total beyond
    /// Int64 would answer 422 yet leave the line stored, and every later
    /// GET /cart and checkout would fail on it. The bounds make it
    /// impossible by construction (unit price ≤ 10^12 minor units, ≤ 100
    /// lines of ≤ 99 units: no total passes 9.9e15; InputBoundsTests prices
    /// that largest cart), so no second pricing pass runs before the write.
    ///
    /// `ifMatch` (the caller's `If-Match`) is asked of the cart as priced
    /// now; the change then commits only while the cart's lines are still
    /// those it was asked of (compared in the cart client's turn for the
    /// user, `precondition_failed` otherwise).
    public func setQuantity(_ quantity: Int, of productID: ProductID,
                            ifMatch: (@Sendable (CartQuote) -> Bool)? = nil) async throws -> CartQuote {
        // A request that would fail without its If-Match fails the same
        // with it (RFC 9110 13.2.1): the quantity is checked before the cart.
        if let invalid = CartLine(productID: productID, quantity: quantity).validate() {
            throw invalid
        }
        guard let product = try await catalog.call({ try await $0.lookup(productID) }), product.active else {
            throw EntityError.notFound(entity: "product", id: productID.description)
        }
        let user = try caller.current.user.id
        let seen = try await cartMatching(ifMatch, of: user)
        return try await quote(try await carts.call { try await $0.setQuantity(user, productID, quantity, unchangedFrom: seen) })
    }

    /// Takes a product's line out; `ifMatch` as for `setQuantity`.
    public func removeLine(_ productID: ProductID,
                           ifMatch: (@Sendable (CartQuote) -> Bool)? = nil) async throws -> CartQuote {
        let user = try caller.current.user.id
        let seen = try await cartMatching(ifMatch, of: user)
        return try await quote(try await carts.call { try await $0.remove(user, productID, unchangedFrom: seen) })
    }

    /// The cart `ifMatch` holds for (nil without a condition), or
    /// `precondition_failed`.
    private func cartMatching(_ ifMatch: (@Sendable (CartQuote) -> Bool)?, of user: UserID) async throws -> Cart? {
        guard let ifMatch else { return nil }
        let cart = try await carts.call { try await $0.cart(for: user) }
        guard ifMatch(try await quote(cart)) else { throw EntityError.preconditionFailed(entity: "cart") }
        return cart
    }

    public func clear() async throws {
        let user = try caller.current.user.id
        _ = try await carts.call { try await $0.clear(user) }
    }

    /// Prices `cart` from the catalogue as it is now.
    public func quote(_ cart: Cart) async throws -> CartQuote {
        try await pricing.quote(cart)
    }
}

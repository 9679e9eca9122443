import Axiom
import CartClient
import CatalogClient
import Domain
import PricingClient
import UserClient

/// The root context of one signed-in session on this server: made by the
/// orchestrator through the session registry on the session's first
/// request, released on logout, idle expiry or eviction. Everything a
/// signed-in user does goes through it, and what needs a role is checked
/// here, not in a handler.
public actor AccountContext: Context {
    public nonisolated let identity: ContextIdentity
    private let users: ClientHandle<UserClient>
    private let catalog: ClientHandle<CatalogClient>
    private let carts: ClientHandle<CartClient>
    private let pricing: ClientHandle<PricingClient>
    public private(set) var user: User?
    public private(set) var sessionID: String?

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        users = try creation.client(UserClient.self)
        catalog = try creation.client(CatalogClient.self)
        carts = try creation.client(CartClient.self)
        pricing = try creation.client(PricingClient.self)
    }

    public enum Action: Sendable {
        case signIn(Authentication)
        case logout
        case createProduct(ProductDraft)
        case updateProduct(ProductID, ProductPatch)
    }

    public enum Outcome: Sendable {
        case user(User)
        case product(Product)
        case loggedOut
    }

    public func send(_ action: Action) async throws -> Outcome {
        switch action {
        case .signIn(let authentication): .user(signIn(authentication))
        case .logout: try await logout()
        case .createProduct(let draft): .product(try await createProduct(draft))
        case .updateProduct(let id, let patch): .product(try await updateProduct(id, patch))
        }
    }

    /// Records who this request's token belongs to (refreshed on every
    /// request, so a role or status change shows at once).
    @discardableResult
    public func signIn(_ authentication: Authentication) -> User {
        user = authentication.user
        sessionID = authentication.sessionID
        return authentication.user
    }

    /// Revokes this session's token.
    public func logout() async throws -> Outcome {
        guard let sessionID else { throw AuthenticationError.invalidToken }
        _ = try await users.send(.logout(sessionID: sessionID))
        user = nil
        self.sessionID = nil
        return .loggedOut
    }

    public func createProduct(_ draft: ProductDraft) async throws -> Product {
        try requireAdmin()
        return try await catalog.create(draft)
    }

    public func updateProduct(_ id: ProductID, _ patch: ProductPatch) async throws -> Product {
        try requireAdmin()
        return try await catalog.update(id, patch)
    }

    // MARK: Cart (one per user: every session of the user sees the same one)

    /// The cart priced from the catalogue as it is now; lines whose product
    /// is gone or deactivated are listed apart and left out of the total.
    public func cart() async throws -> CartQuote {
        try quote(await carts.client.cart(for: try signedInUser().id))
    }

    /// Sets a line's quantity (1…99). The product must exist and be on sale.
    public func setQuantity(_ quantity: Int, of productID: ProductID) async throws -> CartQuote {
        let user = try signedInUser()
        guard let product = catalog.client.snapshotProduct(productID) else {
            throw DomainError.notFound(entity: "product", id: productID.description)
        }
        guard product.active else { throw DomainError.productInactive(productID) }
        return try quote(try await carts.send(.setQuantity(user.id, productID, quantity)))
    }

    public func removeLine(_ productID: ProductID) async throws -> CartQuote {
        try quote(try await carts.send(.remove(try signedInUser().id, productID)))
    }

    public func clearCart() async throws {
        _ = try await carts.send(.clear(try signedInUser().id))
    }

    private func quote(_ cart: Cart) throws -> CartQuote {
        let products = catalog.client.snapshotProducts(cart.lines.map(\.productID))
        return try pricing.client.price(cart: cart, products: products, currency: catalog.client.currency)
    }

    private func signedInUser() throws -> User {
        guard let user else { throw AuthenticationError.invalidToken }
        return user
    }

    private func requireAdmin() throws {
        guard let user else { throw AuthenticationError.invalidToken }
        guard user.isAdmin else { throw AccessDenied.adminOnly }
    }
}

import Axiom
import CatalogClient
import Domain
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
    public private(set) var user: User?
    public private(set) var sessionID: String?

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        users = try creation.client(UserClient.self)
        catalog = try creation.client(CatalogClient.self)
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

    private func requireAdmin() throws {
        guard let user else { throw AuthenticationError.invalidToken }
        guard user.isAdmin else { throw AccessDenied.adminOnly }
    }
}

import Axiom
import Domain
import Synchronization

/// The root context of one signed-in session: who is signed in. Made by the
/// orchestrator through the session registry on the session's first request
/// and released on sign-out, idle expiry or eviction, which releases every
/// feature context below it. Each route group reaches its feature context
/// with `downstream(_:)`, made on first use (RFC-001 section 4: the session's
/// graph is profile, cart, orders, checkout → cart + orders, admin → orders,
/// live updates, wishlist).
public final class SessionContext: Context {
    public static var downstreamTypes: [any Context.Type] {
        [ProfileContext.self, CartContext.self, OrdersContext.self, CheckoutContext.self, AdminContext.self,
         LiveUpdatesContext.self, WishlistContext.self]
    }

    public let identity: ContextIdentity
    /// Refreshed by every request of the session, under the session's own lock.
    private let signedIn = Mutex<Authentication?>(nil)

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
    }

    /// Records who this request's token belongs to, refreshed on every
    /// request, so a role or status change shows at once.
    public func signIn(_ authentication: Authentication) {
        signedIn.withLock { $0 = authentication }
    }

    /// The session's feature context of type `T` (one of `downstreamTypes`),
    /// made on first use. The admin feature exists only in an admin's
    /// session: for anyone else it is refused before it is made (its
    /// functions check the role again, as of each request).
    public func feature<T: Context>(_ type: T.Type, for caller: Authentication) async throws -> T {
        if ObjectIdentifier(type) == ObjectIdentifier(AdminContext.self), !caller.user.isAdmin {
            throw AccessDenied.adminOnly
        }
        return try await downstream(type)
    }

    /// Who is signed in on this session (nil before the first request).
    public var caller: Authentication? { signedIn.withLock { $0 } }
}

import Axiom
import Domain

/// The root context of one signed-in session: who is calling. Made by the
/// registration context through the session registry on the session's
/// first request and released on sign-out, idle expiry or eviction, which
/// releases every feature context below it. Each request enters it
/// (`enter`), which records its caller for every feature of the session
/// and reaches the feature the request is for, made on first use (RFC-001
/// section 4: the session's graph is profile, cart, orders, checkout →
/// cart + orders, admin → orders, live updates, wishlist, account deletion).
public final class SessionContext: SessionFeature {
    public static var downstreamTypes: [any Context.Type] {
        [ProfileContext.self, CartContext.self, OrdersContext.self, CheckoutContext.self, AdminContext.self,
         LiveUpdatesContext.self, WishlistContext.self, AccountDeletionContext.self]
    }

    public let identity: ContextIdentity
    public let caller = SessionCaller()

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
    }

    /// A request of `caller` enters the session: it is the session's
    /// caller from now on, and it reaches the feature of type `T` (one of
    /// `downstreamTypes`), unless the feature refuses it (the admin
    /// feature, for anyone but an admin as of this request).
    func enter<T: SessionFeature>(_ caller: Authentication, _ feature: T.Type) async throws -> T {
        self.caller.enter(caller)
        if let refusal = T.refusal(of: caller) { throw refusal }
        return try await downstream(feature)
    }
}

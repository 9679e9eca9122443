import Axiom
import Contexts
import Domain
import HTTPServer

/// Turns a request's bearer token into its session's context: the token is
/// checked by the storefront (the users client), then the session registry
/// hands out the session's one `AccountContext`, made on first use. No or a
/// bad token is a 401 with `WWW-Authenticate: Bearer`.
public struct SessionResolver: Sendable {
    let storefront: StorefrontContext
    let sessions: SessionRegistry<AccountContext>

    public init(storefront: StorefrontContext, sessions: SessionRegistry<AccountContext>) {
        self.storefront = storefront
        self.sessions = sessions
    }

    /// Runs `body` with the request's signed-in account.
    public func withAccount<R: Sendable>(_ request: HTTPRequest,
                                         _ body: (AccountContext, User) async throws -> R) async throws -> R {
        let token = try BearerToken.from(request)
        let authentication = try await storefront.authenticate(token: token)
        return try await sessions.withSession(Axiom.SessionID(authentication.sessionID)) { account in
            let user = await account.signIn(authentication)
            return try await body(account, user)
        }
    }

    /// Like `withAccount`, for a response that outlives its handler (a live
    /// stream): the session stays in use until the returned use ends, so
    /// idle expiry and eviction leave its context alone meanwhile.
    public func withHeldAccount<R: Sendable>(_ request: HTTPRequest,
                                             _ body: (AccountContext, User) async throws -> R)
        async throws -> (R, SessionUse<AccountContext>) {
        let token = try BearerToken.from(request)
        let authentication = try await storefront.authenticate(token: token)
        let use = try await sessions.beginUse(Axiom.SessionID(authentication.sessionID))
        do {
            let user = await use.context.signIn(authentication)
            return (try await body(use.context, user), use)
        } catch {
            use.end()
            throw error
        }
    }

    /// Sessions whose context is loaded now.
    public var liveSessions: Int { sessions.count }

    /// Ends the session's context (after its token was revoked).
    public func end(sessionID: String) async {
        _ = await sessions.end(Axiom.SessionID(sessionID))
    }
}

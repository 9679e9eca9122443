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

    /// Sessions whose context is loaded now.
    public var liveSessions: Int { sessions.count }

    /// Ends the session's context (after its token was revoked).
    public func end(sessionID: String) async {
        _ = await sessions.end(Axiom.SessionID(sessionID))
    }
}

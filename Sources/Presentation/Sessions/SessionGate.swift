import Axiom
import Contexts
import Domain
import HTTPServer

/// Where a signed-in request enters: its bearer token is parsed once
/// (`BearerToken`) and checked once (`RegistrationContext.authenticate`,
/// which answers a recently verified token without an actor hop), then the
/// session registry hands out the session's root context, made on first
/// use, and records who is signed in on it (a lock, no hop). No or a bad
/// token is a 401 with `WWW-Authenticate: Bearer`.
public struct SessionGate: Sendable {
    let registration: RegistrationContext
    let sessions: SessionRegistry<SessionContext>

    public init(registration: RegistrationContext, sessions: SessionRegistry<SessionContext>) {
        self.registration = registration
        self.sessions = sessions
    }

    /// Runs `body` with the request's session root and its caller; the
    /// session is busy (never evicted) meanwhile.
    func withSession<R: Sendable>(_ request: HTTPRequest,
                                  _ body: (SessionContext, Authentication) async throws -> R) async throws -> R {
        let caller = try await registration.authenticate(token: try BearerToken.from(request))
        return try await sessions.withSession(SessionID(caller.sessionID)) { root in
            root.signIn(caller)
            return try await body(root, caller)
        }
    }

    /// Like `withSession`, for a response that outlives its handler (a live
    /// stream): the session stays in use until the returned use ends, so
    /// idle expiry and eviction leave its contexts alone meanwhile.
    func beginUse(_ request: HTTPRequest) async throws -> (SessionUse<SessionContext>, Authentication) {
        let caller = try await registration.authenticate(token: try BearerToken.from(request))
        let use = try await sessions.beginUse(SessionID(caller.sessionID))
        use.context.signIn(caller)
        return (use, caller)
    }

    /// Sessions whose context is loaded now.
    public var liveSessions: Int { sessions.count }

    /// Releases the session's contexts (after its token was revoked).
    func end(sessionID: String) async {
        _ = await sessions.end(SessionID(sessionID))
    }
}

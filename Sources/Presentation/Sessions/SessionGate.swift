import Axiom
import Contexts
import Domain
import HTTPServer

/// Where a signed-in request enters: its bearer token is parsed once
/// (`BearerToken`) and checked once (`RegistrationContext.authenticate`,
/// which answers a recently verified token without an actor hop), the
/// user's `per-user` rate limit takes a token (`UserRateLimit`), then the
/// session registry hands out the session's root context, made on first
/// use, and records who is signed in on it (a lock, no hop). No or a bad
/// token is a 401 with `WWW-Authenticate: Bearer`.
public struct SessionGate: Sendable {
    let registration: RegistrationContext
    let sessions: SessionRegistry<SessionContext>
    let userLimit: UserRateLimit
    /// The sign-in throttle's policy, for routes that check a password.
    let login: LoginRateLimit

    public init(registration: RegistrationContext, sessions: SessionRegistry<SessionContext>,
                userLimit: UserRateLimit = UserRateLimit(nil)) {
        self.registration = registration
        self.sessions = sessions
        self.userLimit = userLimit
        login = LoginRateLimit(quota: registration.loginPolicy.quota, windowSeconds: registration.loginPolicy.windowSeconds)
    }

    /// Runs `body` with the request's session root and its caller; the
    /// session is busy (never evicted) meanwhile. The response carries the
    /// user policy's rate-limit fields.
    func withSession(_ request: HTTPRequest,
                     _ body: (SessionContext, Authentication) async throws -> HTTPResponse) async throws -> HTTPResponse {
        let caller = try await registration.authenticate(token: try BearerToken.from(request))
        let rate = try userLimit.admit(caller)
        let response = try await sessions.withSession(SessionID(caller.sessionID)) { root in
            root.signIn(caller)
            return try await body(root, caller)
        }
        return userLimit.decorate(response, rate)
    }

    /// Like `withSession`, for a response that outlives its handler (a live
    /// stream): the session stays in use until the returned use ends, so
    /// idle expiry and eviction leave its contexts alone meanwhile. A
    /// request without `Authorization` may present a one-use `ticket` in
    /// its query instead (`POST /events/tickets`): a browser's
    /// `EventSource` cannot send the header.
    func beginUse(_ request: HTTPRequest) async throws
        -> (use: SessionUse<SessionContext>, caller: Authentication, rate: TokenBucket.Decision?) {
        let caller: Authentication
        if request.headers["authorization"] == nil, let ticket = request.query["ticket"] {
            caller = try await registration.redeemEventTicket(ticket)
        } else {
            caller = try await registration.authenticate(token: try BearerToken.from(request))
        }
        let rate = try userLimit.admit(caller)
        let use = try await sessions.beginUse(SessionID(caller.sessionID))
        use.context.signIn(caller)
        return (use, caller, rate)
    }

    /// A one-use ticket for the live stream of the request's session
    /// (already admitted by `withSession`).
    func issueEventTicket(_ request: HTTPRequest) async throws -> EventTicket {
        try await registration.issueEventTicket(token: try BearerToken.from(request))
    }

    /// Sessions whose context is loaded now.
    public var liveSessions: Int { sessions.count }

    /// Releases the session's contexts (after its token was revoked).
    func end(sessionID: String) async {
        _ = await sessions.end(SessionID(sessionID))
    }
}

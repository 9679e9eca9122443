import Axiom
import Contexts
import Domain
import HTTPServer

/// The one stage a signed-in request passes before its handler: its bearer
/// token is parsed once (`BearerToken`), the registration context checks
/// it and enters the session with its caller (`RegistrationContext`,
/// which answers a recently verified token without a read), the user's
/// `per-user` rate limit takes a token on the way (`UserRateLimit`), and
/// the handler gets the session's feature context, which knows who is
/// calling. No or a bad token is a 401 with `WWW-Authenticate: Bearer`.
public struct SessionGate: Sendable {
    let registration: RegistrationContext
    let userLimit: UserRateLimit
    /// The sign-in throttle's policy, for routes that check a password.
    let login: LoginRateLimit

    public init(registration: RegistrationContext, userLimit: UserRateLimit = UserRateLimit(nil)) {
        self.registration = registration
        self.userLimit = userLimit
        login = LoginRateLimit(quota: registration.loginPolicy.quota, windowSeconds: registration.loginPolicy.windowSeconds)
    }

    /// Runs `body` with the request's session feature of type `Feature`;
    /// the session is busy (never evicted) meanwhile. The response carries
    /// the user policy's rate-limit fields.
    func enter<Feature: SessionFeature>(_ request: HTTPRequest, _ feature: Feature.Type,
                                        _ body: (Feature) async throws -> HTTPResponse) async throws -> HTTPResponse {
        var rate: RateLimitState?
        let response = try await registration.withSession(.bearer(try BearerToken.from(request)), feature,
                                                          admitting: { rate = try userLimit.admit($0) }, body)
        return userLimit.decorate(response, rate)
    }

    /// Like `enter`, for a response that outlives its handler (a live
    /// stream): the session stays in use until the returned use ends. A
    /// request without `Authorization` may present a one-use `ticket` in
    /// its query instead (`POST /events/tickets`): a browser's
    /// `EventSource` cannot send the header.
    func beginUse<Feature: SessionFeature>(_ request: HTTPRequest, _ feature: Feature.Type) async throws
        -> (use: SessionUse<SessionContext>, feature: Feature, rate: RateLimitState?) {
        let key: RegistrationContext.SessionKey
        if request.headers["authorization"] == nil, let ticket = request.query["ticket"] {
            key = .eventTicket(ticket)
        } else {
            key = .bearer(try BearerToken.from(request))
        }
        var rate: RateLimitState?
        let (use, entered) = try await registration.beginUse(key, feature, admitting: { rate = try userLimit.admit($0) })
        return (use, entered, rate)
    }

    /// A one-use ticket for the live stream of the request's session
    /// (already admitted by `enter`).
    func issueEventTicket(_ request: HTTPRequest) async throws -> EventTicket {
        try await registration.issueEventTicket(token: try BearerToken.from(request))
    }

    /// Sessions whose context is loaded now.
    public var liveSessions: Int { registration.liveSessions }

    /// Releases the session's contexts (after its token was revoked).
    func end(sessionID: String) async {
        await registration.endSession(sessionID)
    }
}

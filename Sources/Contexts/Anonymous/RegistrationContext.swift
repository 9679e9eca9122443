import Axiom
import Domain
import UserClient

/// Registration and sign-in (`POST /users`, `POST /sessions`), and the
/// sessions they open: a request's bearer token (or a live stream's event
/// ticket) turned into its session's context, entered with its caller, and
/// the session released on sign-out; also the users' housekeeping. One
/// instance for the whole process, made by the orchestrator at start-up:
/// these requests have no session to hang a context on. It holds no state
/// of its own (the session registry is the composition root's), so it is a
/// plain immutable class.
public final class RegistrationContext: Context {
    /// How a request names its session.
    public enum SessionKey: Sendable {
        case bearer(String)
        /// A one-use ticket (`POST /events/tickets`): a browser's
        /// `EventSource` cannot send `Authorization`.
        case eventTicket(String)
    }

    public let identity: ContextIdentity
    private let users: ClientHandle<UserClient>
    private let sessions: SessionRegistry<SessionContext>

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        users = try creation.client(UserClient.self)
        guard let sessions = creation.composition(SessionRegistry<SessionContext>.self) else {
            throw AxiomError.undeclaredDependency(component: "RegistrationContext", dependency: "SessionRegistry")
        }
        self.sessions = sessions
    }

    /// Runs `body` with the `feature` of the session `token` opens, which
    /// this request enters: the token is checked (`invalid_token`), `admit`
    /// may refuse its caller (the per-user rate limit), and the session's
    /// context, made on first use, takes the caller and reaches the
    /// feature (`SessionContext.enter`). The session is busy (never
    /// evicted) while `body` runs.
    public func withSession<Feature: SessionFeature, R: Sendable>(
        _ key: SessionKey, _ feature: Feature.Type, admitting admit: (Authentication) throws -> Void,
        _ body: (Feature) async throws -> R
    ) async throws -> R {
        let caller = try await authenticate(key)
        try admit(caller)
        return try await sessions.withSession(SessionID(caller.sessionID)) { root in
            try await body(try await root.enter(caller, feature))
        }
    }

    /// Like `withSession`, for a response that outlives its handler (a live
    /// stream): the session stays in use until the returned use ends, so
    /// idle expiry and eviction leave its contexts alone meanwhile.
    public func beginUse<Feature: SessionFeature>(
        _ key: SessionKey, _ feature: Feature.Type, admitting admit: (Authentication) throws -> Void
    ) async throws -> (use: SessionUse<SessionContext>, feature: Feature) {
        let caller = try await authenticate(key)
        try admit(caller)
        let use = try await sessions.beginUse(SessionID(caller.sessionID))
        do {
            return (use, try await use.context.enter(caller, feature))
        } catch {
            use.end()
            throw error
        }
    }

    /// Who `key` names: a token's session (a recently verified one without
    /// a read), or a ticket's, which is used up (`invalid_ticket` when
    /// unknown, used, expired or its session ended).
    private func authenticate(_ key: SessionKey) async throws -> Authentication {
        switch key {
        case .bearer(let token): try await users.call { try await $0.authenticate(token: token) }
        case .eventTicket(let ticket): try await users.call { try await $0.redeemEventTicket(ticket) }
        }
    }

    /// Releases the session's contexts (after its token was revoked).
    public func endSession(_ sessionID: String) async {
        _ = await sessions.end(SessionID(sessionID))
    }

    /// Sessions whose context is loaded now.
    public var liveSessions: Int { sessions.count }

    /// A new customer account, or nothing when the email is taken in any
    /// spelling: the caller is answered the same either way (the password
    /// was hashed either way), so registration tells nobody which
    /// addresses have accounts. Invalid input is still refused.
    public func register(_ request: NewUserRequest) async throws {
        do {
            _ = try await users.call { try await $0.register(request) }
        } catch EntityError.duplicate(field: "email", value: _) {
            return
        }
    }

    /// Mails a reset link to the account of `email` if there is one; the
    /// caller is answered the same either way. `mail_not_configured` when
    /// mail is off (for every address alike).
    public func requestPasswordReset(email: String) async throws {
        guard users.call({ $0.accounts.mailEnabled }) else { throw MailNotConfigured() }
        try await users.call { try await $0.requestPasswordReset(email: email) }
    }

    /// Sets the password of the reset token's account and ends every
    /// session of it (`reset_token_invalid`, `validation_failed`).
    public func completePasswordReset(_ completion: PasswordResetCompletion) async throws {
        _ = try await users.call { try await $0.completePasswordReset(completion) }
    }

    /// Confirms the address a verification link was mailed to
    /// (`verification_token_invalid`).
    public func confirmEmail(token: String) async throws {
        _ = try await users.call { try await $0.confirmEmail(token: token) }
    }

    /// Whether mail is on: registration's answer says what to expect.
    public var mailEnabled: Bool { users.call { $0.accounts.mailEnabled } }

    /// Signs in; the token is returned once and stored only as a hash.
    public func signIn(email: String, password: String,
                                   clientAddress: String) async throws -> AuthenticatedSession {
        try await users.call { try await $0.login(email: email, password: password, clientAddress: clientAddress) }
    }

    /// A one-use ticket, valid 30 s, that opens the live stream of
    /// `token`'s session (`GET /events?ticket=…`).
    public func issueEventTicket(token: String) async throws -> EventTicket {
        try await users.call { try await $0.issueEventTicket(token: token) }
    }

    /// The sign-in throttle's numbers and decisions so far (the `login`
    /// rate-limit policy), read without a hop.
    /// Quota: the failures one address may make at one account before its
    /// back-off; window: the seconds after which a run is forgotten.
    public var loginPolicy: (quota: Int, windowSeconds: Int) {
        users.call { ($0.loginPolicy.pairFreeFailures, $0.loginPolicy.windowSeconds) }
    }
    public var loginDecisions: LoginThrottleCounts { users.call { $0.loginDecisions } }

    /// Housekeeping: forgets sessions whose token expired. Returns how many.
    public func removeExpiredSessions() async throws -> Int {
        try await users.call { try await $0.removeExpiredSessions() }
    }

    /// The first admin, from configuration, if that email is not registered yet.
    public func ensureAdmin(name: String, email: String, password: String) async throws -> User {
        try await users.call { try await $0.ensureAdmin(name: name, email: email, password: password) }
    }
}

import Axiom
import Domain
import UserClient

/// Registration and sign-in (`POST /users`, `POST /sessions`), the check of
/// a bearer token that turns a request into a session's, and the users'
/// housekeeping. One instance for the whole process, made by the
/// orchestrator at start-up: these requests have no session to hang a
/// context on. It holds no state, so it is a plain immutable class.
public final class RegistrationContext: Context {
    public let identity: ContextIdentity
    private let users: ClientHandle<UserClient>

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        users = try creation.client(UserClient.self)
    }

    /// A new customer account, or nothing when the email is taken in any
    /// spelling: the caller is answered the same either way (the password
    /// was hashed either way), so registration tells nobody which
    /// addresses have accounts. Invalid input is still refused.
    public func register(_ request: NewUserRequest) async throws {
        do {
            _ = try await users.send(.register(request))
        } catch EntityError.duplicate(field: "email", value: _) {
            return
        }
    }

    /// Signs in; the token is returned once and stored only as a hash.
    public func signIn(email: String, password: String,
                                   clientAddress: String) async throws -> AuthenticatedSession {
        try await users.send(.login(email: email, password: password, clientAddress: clientAddress))
    }

    /// Who a bearer token belongs to (`invalid_token` otherwise). A token
    /// the users client verified recently is answered from its lock-guarded
    /// table without entering the client's actor; a miss asks the client.
    public func authenticate(token: String) async throws -> Authentication {
        if let verified = users.client.verifiedAuthentication(token: token) { return verified }
        return try await users.client.authenticate(token: token)
    }

    /// A one-use ticket, valid 30 s, that opens the live stream of
    /// `token`'s session (`GET /events?ticket=…`).
    public func issueEventTicket(token: String) async throws -> EventTicket {
        try await users.send(.issueEventTicket(token: token))
    }

    /// Who the session of a ticket belongs to; the ticket is used up
    /// (`invalid_ticket` when unknown, used, expired or its session ended).
    public func redeemEventTicket(_ ticket: String) async throws -> Authentication {
        try await users.send(.redeemEventTicket(ticket))
    }

    /// The sign-in throttle's numbers and decisions so far (the `login`
    /// rate-limit policy), read without a hop.
    /// Quota: the failures one address may make at one account before its
    /// back-off; window: the seconds after which a run is forgotten.
    public var loginPolicy: (quota: Int, windowSeconds: Int) {
        (users.client.loginPolicy.pairFreeFailures, users.client.loginPolicy.windowSeconds)
    }
    public var loginDecisions: LoginThrottleCounts { users.client.loginDecisions }

    /// Housekeeping: forgets sessions whose token expired. Returns how many.
    public func removeExpiredSessions() async throws -> Int {
        try await users.send(.removeExpiredSessions)
    }

    /// The first admin, from configuration, if that email is not registered yet.
    public func ensureAdmin(name: String, email: String, password: String) async throws -> User {
        try await users.send(.ensureAdmin(name: name, email: email, password: password))
    }
}

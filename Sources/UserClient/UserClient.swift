import Axiom
import Capabilities
import Domain
import FoundationEssentials

/// What the users client is asked to do.
public enum UserAction: Sendable {
    case register(NewUserRequest)
    case ensureAdmin(name: String, email: String, password: String)
    case login(email: String, password: String, clientAddress: String)
    case authenticate(token: String)
    case logout(sessionID: String)
    /// An admin sets status and/or role; suspending revokes the user's sessions.
    case adminUpdate(UserID, UserAdminPatch)
    /// The user changes their own name, email or password (email and
    /// password only with the current password, whose wrong guesses are
    /// throttled like sign-ins). A new password revokes every session of
    /// the user but `keepingSession`.
    case updateProfile(UserID, UserProfilePatch, keepingSession: String?, clientAddress: String)
    /// Deletes every session whose token has expired.
    case removeExpiredSessions
}

public enum UserOutcome: Sendable {
    case user(User)
    case session(AuthenticatedSession)
    case authentication(Authentication)
    case loggedOut
    case sessionsRemoved(Int)
}

/// `sessionEnded` is published keyed by the session id: an observer of one
/// session subscribes with `stateBroadcaster.subscribe(key: sessionID)`.
public enum UserUpdate: Sendable, Hashable {
    case registered(User)
    case sessionEnded(sessionID: String)
}

/// Users and their sign-in sessions: the singleton owner of `UserState`.
///
/// Writes follow validate → durable commit → apply → publish → return.
/// Passwords are hashed with argon2id by the `PasswordHasher` capability
/// (its pool runs at most one hash per core); the actor suspends while it
/// hashes, so every check that matters is made again after the await.
/// Bearer tokens are 256 bits from the CSPRNG; only their SHA-256 is stored,
/// in memory and in SQLite, so sessions survive a restart and a database
/// leak yields no usable token. Failed sign-ins are throttled per account,
/// per client address and per pair of both, with back-off rather than a
/// lock (`LoginThrottle`), on the injected monotonic clock.
///
/// Whether an email is registered does not change how much work an answer
/// costs: sign-in verifies an unknown email against a decoy hash, and
/// registration hashes the password before it looks the email up.
///
/// Storage that cannot take a write surfaces as
/// `AxiomError.capabilityUnavailable` (503 `storage_unavailable`); reads and
/// token checks are served from memory and keep working.
public actor UserClient: StatefulClient {
    public static let migrations: [Migration] = UserSchema.migrations

    public nonisolated let stateBroadcaster = StateBroadcaster<UserUpdate>(bufferLimit: 256)
    public private(set) var state = UserState()

    private let storage: CapabilityHandle<SQLiteStorage>
    private let hasher: CapabilityHandle<PasswordHasher>
    private let random: CapabilityHandle<SecureRandom>
    private let clock: any TimeSource
    private let sessionLifetime: Int64
    private var passwordHashes: [UserID: String] = [:]
    private var sessionsByTokenHash: [String: UserStore.StoredSession] = [:]
    private var tokenHashesBySession: [String: String] = [:]
    private var throttle: LoginThrottle
    /// Verified against when the email is unknown, so an unknown account
    /// costs as much time as a wrong password.
    private var decoyHash = ""

    public init(storage: CapabilityHandle<SQLiteStorage>, hasher: CapabilityHandle<PasswordHasher>,
                random: CapabilityHandle<SecureRandom>, clock: any TimeSource,
                sessionLifetime: Duration = .seconds(24 * 3600), throttle: LoginThrottle.Policy = LoginThrottle.Policy()) {
        self.storage = storage
        self.hasher = hasher
        self.random = random
        self.clock = clock
        let (seconds, attoseconds) = sessionLifetime.components
        self.sessionLifetime = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        self.throttle = LoginThrottle(policy: throttle)
    }

    // MARK: Lifecycle

    public func activate() async throws {
        let now = Self.nowMilliseconds()
        let (users, sessions) = try await storage.current.read { handle in
            (try UserStore.loadUsers(handle), try UserStore.loadSessions(handle, now: now))
        }
        state = try UserState(users: users.map(\.user))
        passwordHashes = Dictionary(uniqueKeysWithValues: users.map { ($0.user.id, $0.passwordHash) })
        for session in sessions {
            sessionsByTokenHash[session.tokenHash] = session
            tokenHashesBySession[session.id] = session.tokenHash
        }
        decoyHash = try await hasher.current.hash(random.current.token())
    }

    public func deactivate() async {
        stateBroadcaster.finish()
    }

    public func send(_ action: UserAction) async throws -> UserOutcome {
        switch action {
        case .register(let request): .user(try await register(request))
        case .ensureAdmin(let name, let email, let password):
            .user(try await ensureAdmin(name: name, email: email, password: password))
        case .login(let email, let password, let address):
            .session(try await login(email: email, password: password, clientAddress: address))
        case .authenticate(let token): .authentication(try authenticate(token: token))
        case .logout(let sessionID): try await logout(sessionID: sessionID)
        case .adminUpdate(let id, let patch): .user(try await adminUpdate(id, patch))
        case .updateProfile(let id, let patch, let keep, let address):
            .user(try await updateProfile(id, patch, keepingSession: keep, clientAddress: address))
        case .removeExpiredSessions: .sessionsRemoved(try await removeExpiredSessions())
        }
    }

    // MARK: Users

    /// A new customer. `validation_failed` (every field), `duplicate_email`.
    public func register(_ request: NewUserRequest) async throws -> User {
        try await create(request, role: .customer)
    }

    /// The first admin, from configuration: created if the email is not yet
    /// registered, left as it is otherwise.
    public func ensureAdmin(name: String, email: String, password: String) async throws -> User {
        if let existing = state.user(email: email) { return existing }
        return try await create(NewUserRequest(name: name, email: email, password: password), role: .admin)
    }

    public func user(_ id: UserID) throws(DomainError) -> User {
        guard let user = state.user(id) else { throw DomainError.notFound(entity: "user", id: id.description) }
        return user
    }

    /// Every user in creation order, `limit` at a time after `cursor` (the
    /// last id of the previous page).
    public func users(limit: Int, after cursor: String?) throws(DomainError) -> Page<User> {
        guard (1...100).contains(limit) else {
            throw DomainError.validation(ValidationError([FieldError(field: "limit", code: .outOfRange,
                                                                     message: "limit must be between 1 and 100")]))
        }
        return try Page.slice(state.usersByCreation, limit: limit, after: cursor) { $0.id.description }
    }

    /// Status and role, by an admin. A suspended user's sessions are revoked
    /// in the same transaction, so no token of theirs outlives the change.
    /// The last active admin can be neither demoted nor suspended
    /// (`last_admin`, also when admins act on each other at once): the
    /// count is taken inside the write transaction, which the single writer
    /// serializes, and a refusal rolls the change back.
    public func adminUpdate(_ id: UserID, _ patch: UserAdminPatch) async throws -> User {
        let changed = try patch.applied(to: try user(id))
        let revoke = changed.status == .suspended
        // Only the columns the patch sets, so a concurrent change to the
        // others is not overwritten with an old copy.
        let role = patch.role.map { _ in changed.role.rawValue }
        let status = patch.status.map { _ in changed.status.rawValue }
        try await write { handle in
            let wasActiveAdmin = try UserStore.isActiveAdmin(handle, id: id)
            try handle.execute("UPDATE users SET role = COALESCE(?, role), status = COALESCE(?, status) WHERE id = ?",
                               role, status, id.description)
            if wasActiveAdmin, try UserStore.activeAdminCount(handle) == 0 { throw DomainError.lastAdmin(id) }
            if revoke { try handle.execute("DELETE FROM sessions WHERE user_id = ?", id.description) }
        }
        // Applied to the user as it is now, after the await.
        let current = try patch.applied(to: try user(id))
        try state.update(current)
        if revoke { endSessions(of: id, except: nil) }
        return current
    }

    /// All or nothing: validation lists every field; a new email or
    /// password needs the current password (`invalid_credentials`
    /// otherwise), checked before anything else is looked at; a new email
    /// must be free in any spelling; a new password is hashed before
    /// anything is written, and revokes every other session of the user in
    /// the same transaction (their live streams end), so a password changed
    /// after a token leaked shuts the leaked token out. Wrong current
    /// passwords count in the sign-in throttle for this account and
    /// `clientAddress`: a leaked token must not be a way to guess the
    /// password unthrottled.
    public func updateProfile(_ id: UserID, _ patch: UserProfilePatch, keepingSession: String? = nil,
                              clientAddress: String = "local") async throws -> User {
        let before = try user(id)
        _ = try patch.applied(to: before)
        if patch.needsCurrentPassword {
            let account = before.email.normalized
            if let wait = throttle.admit(account: account, address: clientAddress, now: monotonicMilliseconds()) {
                throw AuthenticationError.tooManyAttempts(retryAfterSeconds: wait)
            }
            let current = passwordHashes[id] ?? decoyHash
            guard await hasher.current.verify(patch.currentPassword ?? "", against: current) else {
                throw AuthenticationError.invalidCredentials
            }
            throttle.succeeded(account: account, address: clientAddress, now: monotonicMilliseconds())
        }
        var newHash: String?
        if let password = patch.password { newHash = try await hasher.current.hash(password) }
        // The actor ran other work while hashing: start again from the current user.
        let user = try patch.applied(to: try user(id))
        if state.isEmailTaken(user.email, by: id) {
            throw DomainError.duplicate(field: "email", value: user.email.address)
        }
        let hash = newHash
        try await write { handle in
            do {
                try handle.execute("UPDATE users SET name = ?, email = ?, email_key = ? WHERE id = ?",
                                   user.name, user.email.address, user.email.normalized, id.description)
            } catch let error as StorageError where error.sqliteError?.isUniqueViolation == true {
                throw DomainError.duplicate(field: "email", value: user.email.address)
            }
            if let hash {
                try handle.execute("UPDATE users SET password_hash = ? WHERE id = ?", hash, id.description)
                try handle.execute("DELETE FROM sessions WHERE user_id = ? AND id IS NOT ?", id.description, keepingSession)
            }
        }
        // Applied to the user as it is now: a status or role change made
        // while this one awaited is kept.
        let current = try patch.applied(to: try self.user(id))
        try state.update(current)
        if let hash {
            passwordHashes[id] = hash
            endSessions(of: id, except: keepingSession)
        }
        return current
    }

    private func create(_ request: NewUserRequest, role: UserRole) async throws -> User {
        if let errors = request.validate() { throw DomainError.validation(errors) }
        let email = try Email(request.email)
        // Hashed before the email is looked up: a taken email answered at
        // once (0.7 ms against 80 ms for a new one, release build) told
        // anyone which addresses are registered.
        let hash = try await hasher.current.hash(request.password)
        if state.isEmailTaken(email) { throw DomainError.duplicate(field: "email", value: email.address) }
        let user = try request.makeUser(id: UserID(UUID()), role: role,
                                        createdAt: Timestamp(millisecondsSince1970: Self.nowMilliseconds()))
        try await write { try UserStore.insert($0, user, passwordHash: hash) }
        try state.insert(user)
        passwordHashes[user.id] = hash
        stateBroadcaster.publish(.registered(user))
        return user
    }

    // MARK: Sessions

    public func login(email: String, password: String, clientAddress: String) async throws -> AuthenticatedSession {
        let account = Email.normalizedKey(email)
        if let wait = throttle.admit(account: account, address: clientAddress, now: monotonicMilliseconds()) {
            throw AuthenticationError.tooManyAttempts(retryAfterSeconds: wait)
        }
        // An unknown email is verified against the decoy, so it costs what
        // a wrong password costs.
        let user = state.user(email: email)
        let hash = user.flatMap { passwordHashes[$0.id] } ?? decoyHash
        let matches = await hasher.current.verify(password, against: hash)
        // A failure stays counted (it was counted when admitted).
        guard matches, let user else { throw AuthenticationError.invalidCredentials }
        throttle.succeeded(account: account, address: clientAddress, now: monotonicMilliseconds())
        guard user.canLogIn else { throw AuthenticationError.accountSuspended }

        let token = random.current.token(byteCount: 32, encoding: .base64url)
        let created = Self.nowMilliseconds()
        let session = UserStore.StoredSession(id: UUID().uuidString.lowercased(), userID: user.id,
                                              tokenHash: TokenDigest.sha256Hex(token),
                                              expiresAt: created + sessionLifetime)
        try await write { try UserStore.insert($0, session, createdAt: created) }
        // A suspension may have committed while this login hashed or wrote:
        // its session must not outlive it.
        guard let current = state.user(user.id), current.canLogIn else {
            try? await write { try UserStore.deleteSession($0, id: session.id) }
            throw AuthenticationError.accountSuspended
        }
        // Nor may a password change that revoked the user's other sessions
        // meanwhile: this one was opened with the old password.
        guard passwordHashes[user.id] == hash else {
            try? await write { try UserStore.deleteSession($0, id: session.id) }
            throw AuthenticationError.invalidCredentials
        }
        sessionsByTokenHash[session.tokenHash] = session
        tokenHashesBySession[session.id] = session.tokenHash
        return AuthenticatedSession(token: token, sessionID: session.id, user: user,
                                    expiresAt: Timestamp(millisecondsSince1970: session.expiresAt))
    }

    /// Who `token` belongs to. `invalid_token` when unknown, expired,
    /// revoked, or its user is suspended.
    public func authenticate(token: String) throws(AuthenticationError) -> Authentication {
        let tokenHash = TokenDigest.sha256Hex(token)
        guard let session = sessionsByTokenHash[tokenHash] else { throw .invalidToken }
        guard session.expiresAt > Self.nowMilliseconds() else {
            sessionsByTokenHash[tokenHash] = nil
            tokenHashesBySession[session.id] = nil
            throw .invalidToken
        }
        guard let user = state.user(session.userID), user.isActive else { throw .invalidToken }
        return Authentication(sessionID: session.id, user: user,
                              expiresAt: Timestamp(millisecondsSince1970: session.expiresAt))
    }

    /// Revokes the session; revoking twice is harmless.
    public func logout(sessionID: String) async throws -> UserOutcome {
        try await write { try UserStore.deleteSession($0, id: sessionID) }
        if let tokenHash = tokenHashesBySession.removeValue(forKey: sessionID) {
            sessionsByTokenHash[tokenHash] = nil
        }
        stateBroadcaster.publish(.sessionEnded(sessionID: sessionID), key: sessionID)
        return .loggedOut
    }

    /// Deletes the sessions whose token has expired, from storage and from
    /// memory. An expired token is refused anyway; this keeps the table and
    /// the token map from growing with tokens nobody presents again.
    /// Returns how many were removed from memory.
    public func removeExpiredSessions() async throws -> Int {
        let now = Self.nowMilliseconds()
        try await write { try UserStore.deleteExpiredSessions($0, now: now) }
        let expired = sessionsByTokenHash.filter { $0.value.expiresAt <= now }
        for (tokenHash, session) in expired { forget(session, tokenHash: tokenHash) }
        return expired.count
    }

    /// Forgets every session of `userID` but `kept` (already deleted from
    /// storage); their contexts end their live streams.
    private func endSessions(of userID: UserID, except kept: String?) {
        for (tokenHash, session) in sessionsByTokenHash where session.userID == userID && session.id != kept {
            forget(session, tokenHash: tokenHash)
        }
    }

    private func forget(_ session: UserStore.StoredSession, tokenHash: String) {
        sessionsByTokenHash[tokenHash] = nil
        tokenHashesBySession[session.id] = nil
        stateBroadcaster.publish(.sessionEnded(sessionID: session.id), key: session.id)
    }

    public var liveSessionCount: Int { sessionsByTokenHash.count }

    // MARK: Internals

    private func write(_ body: @escaping @Sendable (SQLiteHandle) throws -> Void) async throws {
        try await storage.durableWrite(body)
    }

    /// Monotonic time for the throttle: a wall-clock step must not lift or
    /// stretch a back-off.
    private func monotonicMilliseconds() -> Int64 {
        let (seconds, attoseconds) = clock.monotonicNow().components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    private static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}

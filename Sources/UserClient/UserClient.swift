import Axiom
import Capabilities
import Domain
import FoundationEssentials
import Synchronization

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
/// lock (`LoginThrottle`), counted in the database (`LoginThrottleStore`)
/// so that replicas throttle by their total, on the injected clock's wall
/// time (replicas share no monotonic clock).
///
/// Whether an email is registered does not change how much work an answer
/// costs: sign-in verifies an unknown email against a decoy hash, and
/// registration hashes the password before it looks the email up.
///
/// ## A working set, not a copy
/// SQLite holds every user and session; the client holds at most
/// `userCacheEntries` users and `sessionCacheEntries` sessions
/// (`VersionedWorkingSet`), read on a miss through indexes (`UserStore`)
/// and nothing at start-up. Password hashes are not kept: sign-in and
/// password checks read the row (next to an argon2id verification, the
/// read is noise). Every change of a user bumps its row's version and a
/// write keeps the row it read back in the same transaction, so a late
/// read never overwrites a newer row; one user's writes take turns
/// (`KeyedTurns`). A session read on a miss is not kept if the session was
/// revoked while it was read; revocations name every deleted session (held
/// or not), so their live streams end.
///
/// Storage that cannot take a write surfaces as
/// `AxiomError.capabilityUnavailable` (503 `storage_unavailable`); so does a
/// miss; hits keep being served.
public actor UserClient: StatefulClient, WorkingSetReporting {
    public static let migrations: [Migration] = UserSchema.migrations
    public static let defaultCacheEntries = 10_000
    /// Rows of a table one step of `removeExpiredSessions` deletes at most.
    static let sweepStep = 1_000

    public nonisolated let stateBroadcaster = StateBroadcaster<UserUpdate>(bufferLimit: 256)

    let storage: StorageAccess
    let hasher: CapabilityHandle<PasswordHasher>
    let random: CapabilityHandle<SecureRandom>
    let clock: any TimeSource
    let sessionLifetime: Int64
    /// The account flows' settings; `mailEnabled` says whether mails are queued.
    public nonisolated let accounts: AccountSettings
    /// Whether a registration enqueues `customer.created` in its commit.
    let webhooks: Bool
    nonisolated let users: VersionedWorkingSet<UserID, User>
    /// By token hash. Session rows never change, only go: each carries
    /// version 0, and a revocation forgets it (a miss read that overlapped
    /// the revocation is then not kept).
    nonisolated let sessions: VersionedWorkingSet<String, UserStore.StoredSession>
    var turns = KeyedTurns<UserID>()
    /// The throttle's decisions, for metrics.
    public nonisolated let loginDecisions = LoginThrottleCounts()
    /// The throttle's numbers, for the `login` rate-limit policy's fields.
    public nonisolated let loginPolicy: LoginThrottle.Policy
    /// Answers of `authenticate` readable without entering this actor
    /// (`verifiedAuthentication(token:)`).
    nonisolated let verified: VersionedWorkingSet<String, Authentication>
    /// Verified against when the email is unknown, so an unknown account
    /// costs as much time as a wrong password.
    var decoyHash = ""

    /// Over SQLite or PostgreSQL alike: the client only sees `StorageHandle`s.
    /// `userCacheEntries` / `sessionCacheEntries`: the most users / sessions
    /// kept in memory (at least 1 each).
    public init(storage: StorageAccess, hasher: CapabilityHandle<PasswordHasher>,
                random: CapabilityHandle<SecureRandom>, clock: any TimeSource,
                sessionLifetime: Duration = .seconds(24 * 3600), throttle: LoginThrottle.Policy = LoginThrottle.Policy(),
                userCacheEntries: Int = UserClient.defaultCacheEntries,
                sessionCacheEntries: Int = UserClient.defaultCacheEntries, accounts: AccountSettings = AccountSettings(),
                webhooks: Bool = false) {
        self.storage = storage
        self.accounts = accounts
        self.webhooks = webhooks
        self.hasher = hasher
        self.random = random
        self.clock = clock
        let (seconds, attoseconds) = sessionLifetime.components
        self.sessionLifetime = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        self.loginPolicy = throttle
        self.users = VersionedWorkingSet(name: "users", capacity: userCacheEntries)
        self.sessions = VersionedWorkingSet(name: "sessions", capacity: sessionCacheEntries)
        self.verified = VersionedWorkingSet(name: "verified_tokens", capacity: sessionCacheEntries, entriesPerShard: 64)
    }

    /// The working set: the users held in memory now.
    public nonisolated var state: UserState {
        (try? UserState(users: users.values)) ?? UserState()
    }

    /// How many users the working set holds.
    public nonisolated var cachedUserCount: Int { users.count }

    /// The working sets' fill and lookups (`WorkingSetReporting`): users,
    /// sessions by token hash, and the answers of `authenticate` kept for
    /// reads outside the actor.
    public var workingSets: [WorkingSetUsage] {
        [users.usage, sessions.usage, verified.usage]
    }

    // MARK: Lifecycle

    /// Reads no user and no session: they are read when asked for.
    public func activate() async throws {
        decoyHash = try await hasher.current.hash(random.current.token())
    }

    public func deactivate() async {
        stateBroadcaster.finish()
    }

    // MARK: Users

    /// A new customer, unverified: with mail on, a verification link is
    /// mailed to the address in the same commit, and with webhooks on
    /// `customer.created` is enqueued in it. `validation_failed`
    /// (every field), `duplicate_email`; with mail on, a taken address
    /// queues a mail to its owner (someone tried to register with it) in
    /// the commit that would have made the account, so both answers cost
    /// one hash and one commit.
    public func register(_ request: NewUserRequest) async throws -> User {
        try await create(request, role: .customer)
    }

    /// The first admin, from configuration: created if the email is not yet
    /// registered, left as it is otherwise. The operator's own account, not
    /// a customer: no `customer.created`.
    public func ensureAdmin(name: String, email: String, password: String) async throws -> User {
        let key = Email.normalizedKey(email)
        if let existing = try await storage.storedRead({ try UserStore.user($0, emailKey: key) }) {
            return existing.user
        }
        return try await create(NewUserRequest(name: name, email: email, password: password), role: .admin)
    }

    /// `user_not_found`. From the working set, or read and kept.
    public nonisolated func user(_ id: UserID) async throws -> User {
        guard let user = try await users.value(id, readingMiss: { [storage] id in
            try await storage.storedRead { try UserStore.user($0, id: id) }?.versioned
        }) else { throw EntityError.notFound(entity: "user", id: id.description) }
        return user
    }

    /// `user(_:)`, given the user's row as a read that began at `started`
    /// found it together with something else (a session): kept like any
    /// miss's row (not if a change of the user the set no longer holds came
    /// after the read began), instead of reading the row again.
    nonisolated func user(_ id: UserID, readAlong row: UserStore.StoredUser,
                          startedAt started: VersionedWorkingSet<UserID, User>.Start) -> User {
        users.lookup(id) ?? users.fill([row.versioned], startedAt: started)[0].value
    }

    /// Every user in creation order, `limit` at a time after `cursor` (the
    /// last id of the previous page): a keyset range on `users_by_creation`.
    public nonisolated func users(limit: Int, after cursor: String?) async throws -> Page<User> {
        guard (1...100).contains(limit) else {
            throw ValidationError([FieldError(field: "limit", code: .outOfRange,
                                                                     message: "limit must be between 1 and 100")])
        }
        let page = try await storage.storedRead { handle -> [User]? in
            var position: (Int64, String)?
            if let cursor {
                guard let found = try UserStore.position(handle, cursor: cursor) else { return nil }
                position = found
            }
            return try UserStore.page(handle, after: position, limit: limit)
        }
        guard let page else {
            throw ValidationError([FieldError(field: "cursor", code: .invalidFormat,
                                                                     message: "cursor is not one this service issued")])
        }
        return Page(readAhead: page, limit: limit) { $0.id.description }
    }

    /// Status and role, by an admin. A suspended user's sessions are revoked
    /// in the same transaction, so no token of theirs outlives the change.
    /// The last active admin can be neither demoted nor suspended
    /// (`last_admin`, also when admins act on each other at once, on any
    /// replica): the admins' rows are locked and counted inside the write
    /// transaction, and a refusal rolls the change back.
    public func adminUpdate(_ id: UserID, _ patch: UserAdminPatch) async throws -> User {
        let changed = try patch.applied(to: try await user(id))
        let revoke = changed.status == .suspended
        // Only the columns the patch sets, so a concurrent change to the
        // others is not overwritten with an old copy.
        let role = patch.role.map { _ in changed.role.rawValue }
        let status = patch.status.map { _ in changed.status.rawValue }
        let deleted = UserError.userDeleted(id)
        let (current, revoked) = try await writeUser(id) { handle -> [UserStore.StoredSession] in
            try UserStore.lockActiveAdmins(handle)
            let wasActiveAdmin = try UserStore.isActiveAdmin(handle, id: id)
            // A deletion committed since the user was read stays.
            guard try handle.execute("""
                UPDATE users SET role = COALESCE(?, role), status = COALESCE(?, status), version = version + 1
                WHERE id = ? AND deleted_at IS NULL
                """,
                               role, status, id.description) == 1 else { throw deleted }
            if wasActiveAdmin, try UserStore.activeAdminCount(handle) == 0 { throw UserError.lastAdmin(id) }
            return revoke ? try UserStore.deleteSessions(handle, user: id, except: nil) : []
        }
        forget(revoked)
        return current
    }

    /// All or nothing: validation lists every field; a new email or
    /// password needs the current password (`invalid_credentials`
    /// otherwise), checked before anything else is looked at; a new email
    /// must be free in any spelling (the unique `email_key` index decides);
    /// a new password is hashed before anything is written. A new password
    /// or a new email revokes every other session of the user in the same
    /// transaction (their live streams end), so a credential changed after
    /// a token leaked shuts the leaked token out. Wrong current passwords count in the sign-in
    /// throttle for this account and `clientAddress`: a leaked token must
    /// not be a way to guess the password unthrottled.
    /// With `unchangedFrom`, `precondition_failed` unless the stored user is
    /// that value inside the write's transaction (and the user's turn).
    public func updateProfile(_ id: UserID, _ patch: UserProfilePatch, keepingSession: String? = nil,
                              clientAddress: String = "local", unchangedFrom: User? = nil) async throws -> User {
        let before = try await user(id)
        _ = try patch.applied(to: before)
        if patch.needsCurrentPassword {
            let account = before.email.normalized
            try await admitSignIn(account: account, address: clientAddress)
            let stored = try await storage.storedRead { try UserStore.user($0, id: id) }
            guard try await verifyAdmitted(patch.currentPassword ?? "", against: stored?.passwordHash ?? decoyHash,
                                           account: account, address: clientAddress) else {
                throw AuthenticationError.invalidCredentials
            }
            try await signInSucceeded(account: account, address: clientAddress)
        }
        var newHash: String?
        if let password = patch.password { newHash = try await hashPassword(password) }
        // The actor ran other work while hashing: start again from the current user.
        let latest = try await self.user(id)
        let user = try patch.applied(to: latest)
        let hash = newHash
        let emailChanged = user.email.normalized != latest.email.normalized
        let revokesOthers = hash != nil || user.email.address != latest.email.address
        let mails = accounts.mailEnabled
        let token = random.current.token(byteCount: 32, encoding: .base64url)
        let lifetime = accounts.verificationTokenLifetimeSeconds
        let now = nowMilliseconds()
        let (current, revoked) = try await writeUser(id) { handle -> [UserStore.StoredSession] in
            if let unchangedFrom, try UserStore.user(handle, id: id)?.user != unchangedFrom {
                throw EntityError.preconditionFailed(entity: "user")
            }
            do {
                try handle.execute("UPDATE users SET name = ?, email = ?, email_key = ?, version = version + 1 WHERE id = ?",
                                   user.name, user.email.address, user.email.normalized, id.description)
            } catch let error as StorageError where error.isUniqueViolation {
                throw EntityError.duplicate(field: "email", value: user.email.address)
            }
            if let hash {
                try handle.execute("UPDATE users SET password_hash = ?, version = version + 1 WHERE id = ?",
                                   hash, id.description)
            }
            if emailChanged {
                // The new address is unconfirmed until its link is followed;
                // the old one is told, so a takeover does not go unnoticed.
                try handle.execute("UPDATE users SET email_verified = 0 WHERE id = ?", id.description)
                if mails {
                    try AccountTokenStore.issue(handle, user: id, purpose: .emailVerification,
                                                emailKey: user.email.normalized, tokenHash: TokenDigest.sha256Hex(token),
                                                now: now, lifetimeSeconds: lifetime)
                    try handle.enqueue(try AccountMail(.verifyEmail, userID: id, token: token,
                                                       address: user.email.address).job(at: now))
                    try handle.enqueue(try AccountMail(.emailChanged, userID: id, address: latest.email.address)
                        .job(at: now))
                }
            }
            guard revokesOthers else { return [] }
            return try UserStore.deleteSessions(handle, user: id, except: keepingSession)
        }
        forget(revoked)
        return current
    }

    private func create(_ request: NewUserRequest, role: UserRole) async throws -> User {
        if let errors = request.validate() { throw errors }
        _ = try Email(request.email)
        // Hashed before the email is looked up, so that a taken email is not
        // answered faster than a new one and the timing does not tell anyone
        // which addresses are registered. The unique `email_key`
        // index refuses a taken one (`duplicate_email`).
        let hash = try await hashPassword(request.password)
        let now = nowMilliseconds()
        // An admin from configuration is the operator's own address.
        let user = try request.makeUser(id: UserID(RandomUUID.make()), role: role,
                                        createdAt: Timestamp(millisecondsSince1970: now), emailVerified: role == .admin)
        let started = users.start(of: user.id)
        let mails = accounts.mailEnabled && role == .customer
        let created = webhooks && role == .customer
            ? try WebhookEvent(type: .customerCreated, subject: .customer(user.id), at: now).request() : nil
        let token = random.current.token(byteCount: 32, encoding: .base64url)
        let lifetime = accounts.verificationTokenLifetimeSeconds
        let taken = try await storage.durableWrite { handle -> Bool in
            if mails, let owner = try UserStore.user(handle, emailKey: user.email.normalized) {
                try handle.enqueue(try AccountMail(.registrationAttempt, userID: owner.user.id).job(at: now))
                return true
            }
            try UserStore.insert(handle, user, passwordHash: hash)
            if let created { try handle.enqueue(created) }
            if mails {
                try AccountTokenStore.issue(handle, user: user.id, purpose: .emailVerification,
                                            emailKey: user.email.normalized, tokenHash: TokenDigest.sha256Hex(token),
                                            now: now, lifetimeSeconds: lifetime)
                try handle.enqueue(try AccountMail(.verifyEmail, userID: user.id, token: token,
                                                   address: user.email.address).job(at: now))
            }
            return false
        }
        if taken { throw EntityError.duplicate(field: "email", value: user.email.address) }
        _ = users.applyCommitted([Versioned(user.id, user, version: 1)], startedAt: started)
        stateBroadcaster.publish(.registered(user))
        return user
    }

    // MARK: Internals

    /// Runs `body` and reads the user back in one durable transaction, in
    /// the user's turn, and keeps the row read back: the cached user is the
    /// one this commit left, and no other change of the user can land in
    /// between. Returns it and what `body` returned.
    func writeUser<R: Sendable>(_ id: UserID, _ body: @escaping @Sendable (any StorageHandle) throws -> R)
        async throws -> (User, R) {
        await enterTurn(id)
        defer { turns.leave(id) }
        let started = users.start(of: id)
        let (stored, result) = try await storage.durableWrite { handle -> (UserStore.StoredUser, R) in
            let result = try body(handle)
            guard let stored = try UserStore.user(handle, id: id) else {
                throw EntityError.notFound(entity: "user", id: id.description)
            }
            try handle.recordChange(ChangeRecord(kind: .user, key: id.description, userID: id.description))
            return (stored, result)
        }
        _ = users.applyCommitted([stored.versioned], startedAt: started)
        // A role, status or email change shows on the user's next request.
        verified.forget { $0.user.id == id }
        return (stored.user, result)
    }

    /// Counts the attempt in the throttle's table, or refuses it with its
    /// back-off. Storage unavailable: the sign-in fails with 503
    /// `storage_unavailable` (it could not read the user either); it is
    /// never let through uncounted.
    func admitSignIn(account: String, address: String) async throws {
        let policy = loginPolicy
        let now = nowMilliseconds()
        let wait = try await storage.durableWrite {
            try LoginThrottleStore.admit($0, policy: policy, account: account, address: address, now: now)
        }
        loginDecisions.record(refused: wait != nil)
        if let wait { throw AuthenticationError.tooManyAttempts(retryAfterSeconds: wait) }
    }

    /// Gives a matched attempt back to the throttle (its own commit; sign-in
    /// does it in the session's transaction instead).
    func signInSucceeded(account: String, address: String) async throws {
        let policy = loginPolicy
        let now = nowMilliseconds()
        try await storage.durableWrite {
            try LoginThrottleStore.succeeded($0, policy: policy, account: account, address: address, now: now)
        }
    }

    /// Gives back an attempt for which no password was checked.
    func signInWithdrawn(account: String, address: String) async throws {
        let policy = loginPolicy
        let now = nowMilliseconds()
        try await storage.durableWrite {
            try LoginThrottleStore.withdrawn($0, policy: policy, account: account, address: address, now: now)
        }
    }

    /// The password check of an admitted attempt; when the hashing queue is
    /// full the attempt is given back before the refusal goes out.
    func verifyAdmitted(_ password: String, against hash: String, account: String, address: String) async throws -> Bool {
        do {
            return try await verifyPassword(password, against: hash)
        } catch let busy as PasswordHashingBusy {
            try await signInWithdrawn(account: account, address: address)
            throw busy
        }
    }

    func enterTurn(_ id: UserID) async {
        if !turns.enter(id) { await withCheckedContinuation { turns.wait($0, for: id) } }
    }

    /// Wall time from the clock capability (tests move it past a
    /// session's expiry instead of sleeping).
    nonisolated func nowMilliseconds() -> Int64 {
        clock.millisecondsSince1970()
    }
}

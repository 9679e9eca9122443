import Axiom
import Capabilities
import Domain

/// The users client's SQL; every function runs inside one storage
/// transaction closure and may run again in a later batch, so it is pure
/// over the handle.
enum UserStore {
    struct StoredUser: Sendable {
        let user: User
        let passwordHash: String
        /// Bumped by every change of the row (`users.version`).
        var version: Int64 = 1

        var versioned: Versioned<UserID, User> { Versioned(user.id, user, version: version) }
    }

    struct StoredSession: Sendable {
        let id: String
        let userID: UserID
        let tokenHash: String
        let expiresAt: Int64
    }

    /// Every read below is one probe of an index (primary key, the unique
    /// `email_key` and `token_hash`, `users_by_creation`): nothing the users
    /// client reads grows with the tables.
    static let userColumns = "id, name, email, email_verified, role, status, deleted_at, created_at, password_hash, version"

    static func user(_ handle: any StorageHandle, id: UserID) throws -> StoredUser? {
        try handle.queryOne("SELECT \(userColumns) FROM users WHERE id = ?", id.description).map(storedUser)
    }

    /// By any spelling of the address (`Email.normalizedKey`).
    static func user(_ handle: any StorageHandle, emailKey: String) throws -> StoredUser? {
        try handle.queryOne("SELECT \(userColumns) FROM users WHERE email_key = ?", emailKey).map(storedUser)
    }

    /// Up to `limit + 1` users in creation order (ties by id) after
    /// `position` (created_at and id of the previous page's last user).
    static func page(_ handle: any StorageHandle, after position: (Int64, String)?, limit: Int) throws -> [User] {
        let rows: [StorageRow]
        if let (createdAt, id) = position {
            rows = try handle.query("""
                SELECT \(userColumns) FROM users WHERE (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?
                """, createdAt, id, limit + 1)
        } else {
            rows = try handle.query("SELECT \(userColumns) FROM users ORDER BY created_at, id LIMIT ?", limit + 1)
        }
        return try rows.map { try storedUser($0).user }
    }

    /// Where a cursor (a user id) stands in the list; nil when it names no user.
    static func position(_ handle: any StorageHandle, cursor: String) throws -> (Int64, String)? {
        guard let row = try handle.queryOne("SELECT created_at, id FROM users WHERE id = ?", cursor) else { return nil }
        return (try row.get("created_at"), try row.get("id"))
    }

    /// The unexpired session with this token hash.
    static func session(_ handle: any StorageHandle, tokenHash: String, now: Int64) throws -> StoredSession? {
        guard let row = try handle.queryOne("""
            SELECT id, user_id, token_hash, expires_at FROM sessions WHERE token_hash = ? AND expires_at > ?
            """, tokenHash, now) else { return nil }
        let userText: String = try row.get("user_id")
        guard let userID = UserID(userText) else { throw UserDataError(description: "session of user \(userText)") }
        return StoredSession(id: try row.get("id"), userID: userID, tokenHash: try row.get("token_hash"),
                             expiresAt: try row.get("expires_at"))
    }

    private static func storedUser(_ row: StorageRow) throws -> StoredUser {
        let idText: String = try row.get("id")
        guard let id = UserID(idText),
              let role = UserRole(rawValue: try row.get("role")),
              let stored = UserStatus(rawValue: try row.get("status"))
        else { throw UserDataError(description: "user row \(idText) is not valid") }
        let deletedAt: Int64? = try row.get("deleted_at")
        let verified: Int64 = try row.get("email_verified")
        let user = User(id: id, name: try row.get("name"), email: try Email(try row.get("email")),
                        emailVerified: verified != 0, role: role, status: deletedAt == nil ? stored : .deleted,
                        createdAt: Timestamp(millisecondsSince1970: try row.get("created_at")))
        return StoredUser(user: user, passwordHash: try row.get("password_hash"), version: try row.get("version"))
    }

    /// `duplicate(email)` when the address is taken in any spelling.
    static func insert(_ handle: any StorageHandle, _ user: User, passwordHash: String) throws {
        do {
            try handle.execute("""
                INSERT INTO users(id, name, email, email_key, password_hash, role, status, created_at, email_verified)
                VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, user.id.description, user.name, user.email.address, user.email.normalized, passwordHash,
                user.role.rawValue, user.status.rawValue, user.createdAt.millisecondsSince1970,
                user.emailVerified ? 1 : 0)
        } catch let error as StorageError where error.isUniqueViolation {
            throw EntityError.duplicate(field: "email", value: user.email.address)
        }
    }

    /// Read inside the write transaction that changes the user, so the
    /// answer is the committed one, not a copy from before an await.
    static func isActiveAdmin(_ handle: any StorageHandle, id: UserID) throws -> Bool {
        try !handle.query("SELECT 1 FROM users WHERE id = ? AND role = 'admin' AND status = 'active'",
                          id.description).isEmpty
    }

    /// Locks every active admin's row until the transaction ends (on
    /// PostgreSQL; SQLite's one writer holds the whole file). Two writers
    /// that each demote another admin would otherwise both count the other
    /// as still active and commit, leaving none: a write skew that READ
    /// COMMITTED lets through between replicas or write connections. The
    /// second waits for the first's commit and then finds one admin fewer.
    static func lockActiveAdmins(_ handle: any StorageHandle) throws {
        _ = try handle.query("SELECT id FROM users WHERE role = 'admin' AND status = 'active' ORDER BY id"
                             + handle.lockingRead)
    }

    static func activeAdminCount(_ handle: any StorageHandle) throws -> Int {
        try handle.query("SELECT COUNT(*) AS n FROM users WHERE role = 'admin' AND status = 'active'")
            .map { row -> Int in try row.get("n") }.first ?? 0
    }

    static func insert(_ handle: any StorageHandle, _ session: StoredSession, createdAt: Int64) throws {
        try handle.execute("INSERT INTO sessions(id, user_id, token_hash, created_at, expires_at) VALUES(?, ?, ?, ?, ?)",
                           session.id, session.userID.description, session.tokenHash, createdAt, session.expiresAt)
    }

    /// The user's unexpired sessions, oldest first (`sessions_by_user`).
    static func sessions(_ handle: any StorageHandle, user: UserID, now: Int64) throws -> [SessionSummary] {
        try handle.query("""
            SELECT id, created_at, expires_at FROM sessions WHERE user_id = ? AND expires_at > ? ORDER BY created_at, id
            """, user.description, now).map { row in
            SessionSummary(id: try row.get("id"), createdAt: Timestamp(millisecondsSince1970: try row.get("created_at")),
                           expiresAt: Timestamp(millisecondsSince1970: try row.get("expires_at")), current: false)
        }
    }

    /// Deletes the session if it is `user`'s; returns it (nil: no such
    /// session of theirs, another user's included).
    static func deleteSession(_ handle: any StorageHandle, id: String, of user: UserID) throws -> StoredSession? {
        guard let row = try handle.queryOne("SELECT token_hash, expires_at FROM sessions WHERE id = ? AND user_id = ?",
                                            id, user.description) else { return nil }
        let session = StoredSession(id: id, userID: user, tokenHash: try row.get("token_hash"),
                                    expiresAt: try row.get("expires_at"))
        try handle.execute("DELETE FROM sessions WHERE id = ?", id)
        try handle.recordChange(ChangeRecord(kind: .session, key: id, userID: user.description))
        return session
    }

    /// Deletes the session; returns its token hash (nil if it was gone).
    static func deleteSession(_ handle: any StorageHandle, id: String) throws -> String? {
        let tokenHash = try handle.queryOne("SELECT token_hash FROM sessions WHERE id = ?", id)
            .map { row -> String in try row.get("token_hash") }
        try handle.execute("DELETE FROM sessions WHERE id = ?", id)
        // Every replica must refuse the token from this commit on.
        try handle.recordChange(ChangeRecord(kind: .session, key: id))
        return tokenHash
    }

    /// Deletes every session of `user` but `kept`; returns them, so the
    /// client can forget the ones it holds and end every one's streams
    /// (held or not).
    static func deleteSessions(_ handle: any StorageHandle, user: UserID, except kept: String?) throws -> [StoredSession] {
        let sessions = try handle.query("""
            SELECT id, token_hash, expires_at FROM sessions WHERE user_id = ? AND id IS DISTINCT FROM ?
            """, user.description, kept).map { row in
            StoredSession(id: try row.get("id"), userID: user, tokenHash: try row.get("token_hash"),
                          expiresAt: try row.get("expires_at"))
        }
        try handle.execute("DELETE FROM sessions WHERE user_id = ? AND id IS DISTINCT FROM ?", user.description, kept)
        for session in sessions {
            try handle.recordChange(ChangeRecord(kind: .session, key: session.id, userID: user.description))
        }
        return sessions
    }

    /// Deletes up to `limit` sessions expired at `now` (their tickets go
    /// with them); returns how many. Bounded so one sweep's write stays
    /// small: see `UserClient.removeExpiredSessions`.
    static func deleteExpiredSessions(_ handle: any StorageHandle, now: Int64, limit: Int) throws -> Int {
        try handle.execute("""
            DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE expires_at <= ? LIMIT ?)
            """, now, limit)
    }
}

struct UserDataError: Error, CustomStringConvertible {
    let description: String
}

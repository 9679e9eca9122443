import Capabilities
import Domain

/// The users client's SQL; every function runs inside one storage
/// transaction closure and may run again in a later batch, so it is pure
/// over the handle.
enum UserStore {
    struct StoredUser: Sendable {
        let user: User
        let passwordHash: String
    }

    struct StoredSession: Sendable {
        let id: String
        let userID: UserID
        let tokenHash: String
        let expiresAt: Int64
    }

    static func loadUsers(_ handle: SQLiteHandle) throws -> [StoredUser] {
        try handle.query("SELECT id, name, email, role, status, created_at, password_hash FROM users").map { row in
            let idText: String = try row.get("id")
            guard let id = UserID(idText),
                  let role = UserRole(rawValue: try row.get("role")),
                  let status = UserStatus(rawValue: try row.get("status"))
            else { throw UserDataError(description: "user row \(idText) is not valid") }
            let user = User(id: id, name: try row.get("name"), email: try Email(try row.get("email")), role: role,
                            status: status, createdAt: Timestamp(millisecondsSince1970: try row.get("created_at")))
            return StoredUser(user: user, passwordHash: try row.get("password_hash"))
        }
    }

    static func loadSessions(_ handle: SQLiteHandle, now: Int64) throws -> [StoredSession] {
        try handle.query("SELECT id, user_id, token_hash, expires_at FROM sessions WHERE expires_at > ?", now).map { row in
            let userText: String = try row.get("user_id")
            guard let userID = UserID(userText) else { throw UserDataError(description: "session of user \(userText)") }
            return StoredSession(id: try row.get("id"), userID: userID, tokenHash: try row.get("token_hash"),
                                 expiresAt: try row.get("expires_at"))
        }
    }

    /// `duplicate(email)` when the address is taken in any spelling.
    static func insert(_ handle: SQLiteHandle, _ user: User, passwordHash: String) throws {
        do {
            try handle.execute("""
                INSERT INTO users(id, name, email, email_key, password_hash, role, status, created_at)
                VALUES(?, ?, ?, ?, ?, ?, ?, ?)
                """, user.id.description, user.name, user.email.address, user.email.normalized, passwordHash,
                user.role.rawValue, user.status.rawValue, user.createdAt.millisecondsSince1970)
        } catch let error as StorageError where error.sqliteError?.isUniqueViolation == true {
            throw DomainError.duplicate(field: "email", value: user.email.address)
        }
    }

    /// Read inside the write transaction that changes the user, so the
    /// answer is the committed one, not a copy from before an await.
    static func isActiveAdmin(_ handle: SQLiteHandle, id: UserID) throws -> Bool {
        try !handle.query("SELECT 1 FROM users WHERE id = ? AND role = 'admin' AND status = 'active'",
                          id.description).isEmpty
    }

    static func activeAdminCount(_ handle: SQLiteHandle) throws -> Int {
        try handle.query("SELECT COUNT(*) AS n FROM users WHERE role = 'admin' AND status = 'active'")
            .map { row -> Int in try row.get("n") }.first ?? 0
    }

    static func insert(_ handle: SQLiteHandle, _ session: StoredSession, createdAt: Int64) throws {
        try handle.execute("INSERT INTO sessions(id, user_id, token_hash, created_at, expires_at) VALUES(?, ?, ?, ?, ?)",
                           session.id, session.userID.description, session.tokenHash, createdAt, session.expiresAt)
    }

    static func deleteSession(_ handle: SQLiteHandle, id: String) throws {
        try handle.execute("DELETE FROM sessions WHERE id = ?", id)
    }

    static func deleteExpiredSessions(_ handle: SQLiteHandle, now: Int64) throws {
        try handle.execute("DELETE FROM sessions WHERE expires_at <= ?", now)
    }
}

struct UserDataError: Error, CustomStringConvertible {
    let description: String
}

import Capabilities
import Domain

/// The mailed account tokens (`account_tokens`): only each token's SHA-256
/// is stored, with its purpose, the address it was mailed to (its
/// normalized key) and its expiry. A token is used once: `redeem` marks it
/// used in the transaction that acts on it. Issuing one voids the
/// account's earlier unused ones of the same purpose. Rows stay until the
/// sweep after their expiry and the reset window, so issued links can be
/// counted for the per-account throttle.
enum AccountTokenStore {
    struct Pending: Sendable {
        let userID: UserID
        let emailKey: String
    }

    static func issue(_ handle: any StorageHandle, user: UserID, purpose: AccountTokenPurpose, emailKey: String,
                      tokenHash: String, now: Int64, lifetimeSeconds: Int64) throws {
        try handle.execute("""
            UPDATE account_tokens SET used_at = ? WHERE user_id = ? AND purpose = ? AND used_at IS NULL
            """, now, user.description, purpose.rawValue)
        try handle.execute("""
            INSERT INTO account_tokens(token_hash, user_id, purpose, email_key, created_at, expires_at)
            VALUES(?, ?, ?, ?, ?, ?)
            """, tokenHash, user.description, purpose.rawValue, emailKey, now, now + lifetimeSeconds * 1000)
    }

    /// Tokens of `purpose` issued to `user` since `since` (used or not).
    static func issuedCount(_ handle: any StorageHandle, user: UserID, purpose: AccountTokenPurpose,
                            since: Int64) throws -> Int {
        try handle.queryOne("""
            SELECT COUNT(*) AS n FROM account_tokens WHERE user_id = ? AND purpose = ? AND created_at > ?
            """, user.description, purpose.rawValue, since).map { row -> Int in try row.get("n") } ?? 0
    }

    /// The unused, unexpired token's owner, read before the work it allows
    /// (hashing a password); `redeem` decides in the write.
    static func pending(_ handle: any StorageHandle, tokenHash: String, purpose: AccountTokenPurpose,
                        now: Int64) throws -> Pending? {
        guard let row = try handle.queryOne("""
            SELECT user_id, email_key FROM account_tokens
            WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
            """, tokenHash, purpose.rawValue, now) else { return nil }
        let text: String = try row.get("user_id")
        guard let user = UserID(text) else { throw UserDataError(description: "account token of user \(text)") }
        return Pending(userID: user, emailKey: try row.get("email_key"))
    }

    /// Marks the token used if it is unused and unexpired, in one statement:
    /// of two redemptions racing on any replica, one changes the row and
    /// the other finds it used. Answers whether this one did.
    static func redeem(_ handle: any StorageHandle, tokenHash: String, purpose: AccountTokenPurpose,
                       now: Int64) throws -> Bool {
        try handle.execute("""
            UPDATE account_tokens SET used_at = ?
            WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
            """, now, tokenHash, purpose.rawValue, now) == 1
    }

    /// Voids every unused token of the account (a reset, a deletion).
    static func void(_ handle: any StorageHandle, user: UserID, now: Int64) throws {
        try handle.execute("UPDATE account_tokens SET used_at = ? WHERE user_id = ? AND used_at IS NULL",
                           now, user.description)
    }

    /// Deletes every token of the account (its deletion: they hold its address).
    static func deleteAll(_ handle: any StorageHandle, user: UserID) throws {
        try handle.execute("DELETE FROM account_tokens WHERE user_id = ?", user.description)
    }

    /// Deletes up to `limit` tokens expired before `before`; answers how many.
    static func deleteExpired(_ handle: any StorageHandle, before: Int64, limit: Int) throws -> Int {
        try handle.execute("""
            DELETE FROM account_tokens WHERE token_hash IN
                (SELECT token_hash FROM account_tokens WHERE expires_at <= ? LIMIT ?)
            """, before, limit)
    }
}

import Capabilities

/// Event-stream tickets in the database (`event_tickets`, migration 104),
/// by the SHA-256 of the ticket (like session tokens, a leaked table yields
/// no usable ticket). In one process's memory they made the ticket's POST
/// and its stream reach the same replica (sticky sessions); in the
/// database a ticket minted on any replica opens one stream on any, once.
///
/// The price is a durable write on each mint and each use: next to the
/// stream the ticket opens (and a browser mints one per connection, not
/// per request), it is small. Bounded: a session holds at most
/// `perSession` unused tickets (its oldest go first), a session's tickets
/// go with its row (`ON DELETE CASCADE`: sign-out, suspension, password
/// change), and the expiry sweep deletes the rest.
enum EventTicketStore {
    struct Entry: Sendable {
        let sessionID: String
        /// The session's token hash: using the ticket checks the session
        /// again, as its bearer token would be checked.
        let tokenHash: String
        let expiresAt: Int64
    }

    static let perSession = 4

    /// Keeps the ticket while its session still exists; false when the
    /// session is gone (revoked since it was checked). The session's
    /// oldest tickets beyond `perSession` are deleted in the same write.
    static func insert(_ handle: any StorageHandle, _ entry: Entry, ticketHash: String) throws -> Bool {
        // Only with the session's row there: an insert referring to a
        // deleted session would fail the foreign key, and a failed statement
        // aborts the request on PostgreSQL.
        let inserted = try handle.execute("""
            INSERT INTO event_tickets(ticket_hash, session_id, token_hash, expires_at)
            SELECT ?, id, ?, ? FROM sessions WHERE id = ?
            """, ticketHash, entry.tokenHash, entry.expiresAt, entry.sessionID)
        guard inserted == 1 else { return false }
        try handle.execute("""
            DELETE FROM event_tickets WHERE session_id = ? AND ticket_hash NOT IN (
                SELECT ticket_hash FROM event_tickets WHERE session_id = ?
                ORDER BY expires_at DESC, ticket_hash LIMIT ?)
            """, entry.sessionID, entry.sessionID, perSession)
        return true
    }

    /// Deletes the ticket (it is used, whatever the answer) and returns it
    /// if it had not expired at `now`. The delete is the claim: of
    /// replicas redeeming one ticket at once, one deletes the row and the
    /// others find none.
    static func take(_ handle: any StorageHandle, ticketHash: String, now: Int64) throws -> Entry? {
        guard let row = try handle.queryOne("""
            DELETE FROM event_tickets WHERE ticket_hash = ?
            RETURNING session_id, token_hash, expires_at
            """, ticketHash) else { return nil }
        let entry = Entry(sessionID: try row.get("session_id"), tokenHash: try row.get("token_hash"),
                          expiresAt: try row.get("expires_at"))
        return entry.expiresAt > now ? entry : nil
    }

    /// Deletes up to `limit` tickets expired at `now`; returns how many.
    static func deleteExpired(_ handle: any StorageHandle, now: Int64, limit: Int) throws -> Int {
        try handle.execute("""
            DELETE FROM event_tickets WHERE ticket_hash IN (
                SELECT ticket_hash FROM event_tickets WHERE expires_at <= ? LIMIT ?)
            """, now, limit)
    }

    static func count(_ handle: any StorageHandle) throws -> Int {
        let count: Int64 = try handle.queryOne("SELECT COUNT(*) AS n FROM event_tickets")?.get("n") ?? 0
        return Int(count)
    }
}

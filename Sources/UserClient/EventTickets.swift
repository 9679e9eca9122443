/// The event-stream tickets minted and not yet used, by the SHA-256 of the
/// ticket (like session tokens, a memory dump yields no usable ticket).
///
/// Kept in memory only: a ticket lives 30 s and a browser mints a new one
/// whenever its stream drops, so a restart losing them costs a reconnect,
/// while a table would put a durable write (an fsync) on each mint and
/// each use. The price: with several replicas, the ticket's POST and its
/// stream must reach the same one (the PostgreSQL deployment would keep
/// them in a table instead). Bounded: a session holds at most `perSession` tickets (its
/// oldest goes first), and beyond `capacity` the expired ones, then the
/// oldest, are dropped, so no one signed in can grow it without bound.
struct EventTickets: Sendable {
    struct Entry: Sendable {
        let sessionID: String
        /// The session's token hash: using the ticket checks the session
        /// again, as its bearer token would be checked.
        let tokenHash: String
        let expiresAt: Int64
    }

    let capacity: Int
    let perSession: Int
    private var entries: [String: Entry] = [:]

    init(capacity: Int, perSession: Int = 4) {
        self.capacity = max(1, capacity)
        self.perSession = max(1, perSession)
    }

    var count: Int { entries.count }

    mutating func insert(_ entry: Entry, for ticketHash: String, now: Int64) {
        let mine = entries.filter { $0.value.sessionID == entry.sessionID }
        if mine.count >= perSession, let oldest = mine.min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
            entries[oldest.key] = nil
        }
        if entries.count >= capacity {
            entries = entries.filter { $0.value.expiresAt > now }
            if entries.count >= capacity, let oldest = entries.min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
                entries[oldest.key] = nil
            }
        }
        entries[ticketHash] = entry
    }

    /// Removes the ticket (it is used, whatever the answer) and returns it
    /// if it had not expired at `now`.
    mutating func take(_ ticketHash: String, now: Int64) -> Entry? {
        guard let entry = entries.removeValue(forKey: ticketHash), entry.expiresAt > now else { return nil }
        return entry
    }

    /// Forgets the tickets of sessions that ended.
    mutating func forget(sessions ids: Set<String>) {
        entries = entries.filter { !ids.contains($0.value.sessionID) }
    }
}

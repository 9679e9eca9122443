/// A user's rows in the `changes` outbox, of every kind (each client asks
/// for its own), read by the clients when an
/// `/events` stream resumes from a `Last-Event-ID` (a sequence): on any
/// process and after a restart, since the outbox, not a process, holds them.
/// Through the `changes_by_user_span ((seq >> 8), user_id, seq)` index
/// (see `ChangeOutbox`): one probe for each span of 256 sequence numbers
/// since the id, then the user's rows in it, not the outbox's. A stream
/// further behind than `maxResumeSpan` changes is not resumed but reset
/// (its client reloads), as one behind retention is: that bounds a
/// resume's reads (1,024 probes a kind) whatever id a client presents.
public enum OutboxUserIndex {
    /// A span is `1 << spanBits` sequence numbers; the index's first column is `seq >> spanBits`.
    static let spanBits: Int64 = 8
    /// The most changes after a stream's last id that it can still resume over.
    public static let maxResumeSpan: Int64 = 1 << 18

    /// The outbox's oldest kept and newest sequence, read in one snapshot: a
    /// resume replays up to `head` (everything committed at or below it is
    /// visible then, see `ChangeOutbox`: the gap), and cannot resume from
    /// before `oldest - 1` (pruned).
    public struct Window: Sendable, Equatable {
        public let oldest: Int64
        public let head: Int64

        public init(oldest: Int64, head: Int64) {
            self.oldest = oldest
            self.head = head
        }

        /// Whether a stream that saw `sequence` can be told exactly what came after it.
        public func canResume(after sequence: Int64) -> Bool {
            sequence >= 0 && sequence <= head && sequence >= oldest - 1 && head - sequence <= maxResumeSpan
        }
    }

    public static func window(_ handle: any StorageHandle) throws -> Window {
        Window(oldest: try ChangeOutbox.oldest(handle), head: try ChangeOutbox.head(handle))
    }

    /// The newest sequence of each key of `kind` changed for `user` in
    /// `(after, through]`.
    public static func latest(_ handle: any StorageHandle, user: String, kind: ChangeKind,
                              after: Int64, through: Int64) throws -> [String: Int64] {
        try latest(handle, user: user, kind: kind, after: after, through: through) { $0 }
    }

    /// `latest` with each key read as the client's identifier (`OrderID.init`);
    /// a key that does not read as one is not the client's and is left out.
    public static func latest<Key: Hashable>(_ handle: any StorageHandle, user: String, kind: ChangeKind,
                                             after: Int64, through: Int64,
                                             key: (String) -> Key?) throws -> [Key: Int64] {
        guard after < through else { return [:] }
        var latest: [Key: Int64] = [:]
        // Oldest span first, so a later span's row of a key replaces an earlier one's.
        for span in ((after + 1) >> spanBits)...(through >> spanBits) {
            let rows = try handle.query("""
                SELECT key, MAX(seq) AS seq FROM changes
                WHERE (seq >> \(spanBits)) = ? AND user_id = ? AND seq > ? AND seq <= ? AND kind = ? GROUP BY key
                """, span, user, after, through, kind.rawValue)
            for row in rows {
                if let parsed = key(try row.get("key")) { latest[parsed] = try row.get("seq") }
            }
        }
        return latest
    }
}

/// A user's rows in the `changes` outbox, of every kind (each client asks
/// for its own), read by the clients when an `/events` stream resumes from
/// a `Last-Event-ID` (a position): on any process and after a restart,
/// since the outbox, not a process, holds them. Through the user index
/// (see `ChangeOutbox`), which leads with the row's span (`position >>
/// spanBits`): one probe for each span since the id, then the user's rows
/// in it, not the outbox's. A stream further behind than `maxResumeSpan`
/// positions is not resumed but reset (its client reloads), as one behind
/// retention is: that bounds a resume's reads (1,024 probes a kind)
/// whatever id a client presents.
public struct OutboxUserIndex: Sendable {
    /// The indexed column: SQLite's `seq` is its position.
    let column: String
    /// A span is `1 << spanBits` positions: 256 rows on SQLite, 256
    /// transactions on PostgreSQL (`ChangeOutbox.xidShift`).
    let spanBits: Int64
    /// The most positions after a stream's last id that it can still resume over.
    public let maxResumeSpan: Int64

    static let sqlite = OutboxUserIndex(column: "seq", spanBits: 8, maxResumeSpan: 1 << 18)
    static let postgres = OutboxUserIndex(column: "position", spanBits: 8 + ChangeOutbox.xidShift,
                                          maxResumeSpan: 1 << (18 + ChangeOutbox.xidShift))

    static func of(_ handle: any StorageHandle) -> OutboxUserIndex {
        handle.dialect == .sqlite ? sqlite : postgres
    }

    /// The range a resume can cover, read in one snapshot: a resume replays
    /// up to `head`, and cannot resume from before `resumableAfter` (pruned).
    public struct Window: Sendable, Equatable {
        public let resumableAfter: Int64
        public let head: Int64
        public let maxResumeSpan: Int64

        public init(resumableAfter: Int64, head: Int64, maxResumeSpan: Int64) {
            self.resumableAfter = resumableAfter
            self.head = head
            self.maxResumeSpan = maxResumeSpan
        }

        /// Whether a stream that saw `sequence` can be told exactly what came after it.
        public func canResume(after sequence: Int64) -> Bool {
            sequence >= 0 && sequence <= head && sequence >= resumableAfter && head - sequence <= maxResumeSpan
        }
    }

    public static func window(_ handle: any StorageHandle) throws -> Window {
        Window(resumableAfter: try ChangeOutbox.resumableAfter(handle), head: try ChangeOutbox.head(handle),
               maxResumeSpan: of(handle).maxResumeSpan)
    }

    /// The newest position of each key of `kind` changed for `user` in
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
        let index = of(handle)
        let column = index.column, bits = index.spanBits
        var latest: [Key: Int64] = [:]
        // Oldest span first, so a later span's row of a key replaces an earlier one's.
        for span in ((after + 1) >> bits)...(through >> bits) {
            let rows = try handle.query("""
                SELECT key, MAX(\(column)) AS position FROM changes
                WHERE (\(column) >> \(bits)) = ? AND user_id = ? AND \(column) > ? AND \(column) <= ? AND kind = ?
                GROUP BY key
                """, span, user, after, through, kind.rawValue)
            for row in rows {
                if let parsed = key(try row.get("key")) { latest[parsed] = try row.get("position") }
            }
        }
        return latest
    }
}

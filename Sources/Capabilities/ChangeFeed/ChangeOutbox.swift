/// The `changes` table: every client write records what it changed here in
/// its own transaction, under a global sequence that is the commit order.
///
/// ## The gap, and why the sequence is the commit order
/// A sequence value is taken at insert but becomes visible at commit, and
/// transactions commit out of order: on PostgreSQL, A takes 5, B takes 6,
/// B commits, a follower reads `seq > 4`, sees 6 and moves past 5, which A
/// commits a moment later and nobody ever applies. So the rows are not
/// inserted by the request's statements: `PostgresHandle.recordChange` keeps
/// them, and the group-commit writer inserts the batch's rows as the last
/// step before `COMMIT`, under `pg_advisory_xact_lock(lockKey)`, which every
/// writing batch takes first thing after `BEGIN` (one batch at a time on the
/// database, which also keeps replicas' batches from deadlocking). The lock
/// is held from the first sequence value to the commit and released by it,
/// so the next transaction takes its values only after this one is visible
/// (or gone): a follower that saw `n` will never see a smaller one appear.
/// The cost is one lock per batch (group commit), held for the batch and its
/// COMMIT. Rolled-back batches leave holes in the sequence; followers do not
/// care. SQLite has one writer at a time per file (across processes too),
/// so the rows are inserted in the request's savepoint and AUTOINCREMENT
/// gives the commit order.
enum ChangeOutbox {
    /// "the Axiom change outbox" for `pg_advisory_xact_lock`.
    static let lockKey: Int64 = 0x4158_4348_4753
    /// The `LISTEN` channel; `pg_notify` in the writing transaction.
    static let channel = "axiom_changes"

    /// Applied with the bookkeeping tables by both migration runners: the
    /// outbox belongs to the storage capability, not to a client.
    /// The user index, `changes_by_user_span`, leads with the row's span of
    /// 256 sequence numbers (`seq >> 8`; `OutboxUserIndex.spanBits`) and
    /// only then the user: a new row goes among the current span's few
    /// leaves, which a commit's writes share, where `(user_id, seq)` put
    /// every write on a leaf of its own across the whole index (one more
    /// page a write in the WAL and again at the checkpoint). A resume reads
    /// one probe a span (`OutboxUserIndex.latest`).
    static let sqliteSchema = """
        CREATE TABLE IF NOT EXISTS changes (
            seq         INTEGER PRIMARY KEY AUTOINCREMENT,
            kind        TEXT NOT NULL,
            key         TEXT NOT NULL,
            user_id     TEXT,
            origin      TEXT NOT NULL,
            recorded_at INTEGER NOT NULL
        ) STRICT;
        DROP INDEX IF EXISTS changes_by_user;
        CREATE INDEX IF NOT EXISTS changes_by_user_span ON changes((seq >> \(OutboxUserIndex.spanBits)), user_id, seq);
        CREATE INDEX IF NOT EXISTS changes_by_time ON changes(recorded_at);
        """

    static let postgresSchema = """
        CREATE TABLE IF NOT EXISTS changes (
            seq         BIGSERIAL PRIMARY KEY,
            kind        TEXT NOT NULL,
            key         TEXT NOT NULL,
            user_id     TEXT,
            origin      TEXT NOT NULL,
            recorded_at BIGINT NOT NULL
        );
        DROP INDEX IF EXISTS changes_by_user;
        CREATE INDEX IF NOT EXISTS changes_by_user_span ON changes((seq >> \(OutboxUserIndex.spanBits)), user_id, seq);
        CREATE INDEX IF NOT EXISTS changes_by_time ON changes(recorded_at);
        """

    static let sqliteInsert = """
        INSERT INTO changes(kind, key, user_id, origin, recorded_at) VALUES(?, ?, ?, ?, unixepoch()) RETURNING seq
        """

    /// One multi-row INSERT for a batch's records, in their order (PostgreSQL
    /// numbers a VALUES list's rows in order).
    static func postgresInsert(_ records: [ChangeRecord], origin: String) -> (String, [StorageValue]) {
        var rows: [String] = []
        var values: [StorageValue] = []
        for record in records {
            let base = values.count
            rows.append("($\(base + 1), $\(base + 2), $\(base + 3), $\(base + 4), extract(epoch from now())::bigint)")
            values += [.text(record.kind.rawValue), .text(record.key),
                       record.userID.map(StorageValue.text) ?? .null, .text(origin)]
        }
        return ("INSERT INTO changes(kind, key, user_id, origin, recorded_at) VALUES " + rows.joined(separator: ", ")
                + " RETURNING seq", values)
    }

    /// The committed rows after `sequence`, oldest first.
    static func changes(_ handle: any StorageHandle, after sequence: Int64, limit: Int) throws -> [Change] {
        try handle.query("SELECT seq, kind, key, user_id, origin FROM changes WHERE seq > ? ORDER BY seq LIMIT ?",
                         sequence, Int64(limit)).compactMap(change)
    }

    /// The newest committed sequence (0 when the outbox is empty).
    static func head(_ handle: any StorageHandle) throws -> Int64 {
        try handle.queryOne("SELECT COALESCE(MAX(seq), 0) AS head FROM changes")?.get("head") ?? 0
    }

    /// The oldest sequence still kept (0 when empty): a position before it
    /// cannot be followed or replayed.
    static func oldest(_ handle: any StorageHandle) throws -> Int64 {
        try handle.queryOne("SELECT COALESCE(MIN(seq), 0) AS oldest FROM changes")?.get("oldest") ?? 0
    }

    /// Deletes up to `limit` rows recorded before `cutoff` (Unix seconds),
    /// keeping the newest row so the sequence's position survives an idle
    /// outbox; returns how many. `ChangeFeed` repeats it while a step
    /// deletes `limit`: an hour of changes is millions of rows, too many
    /// for one write of the batch every request shares.
    static func prune(_ handle: any StorageHandle, recordedBefore cutoff: Int64, limit: Int) throws -> Int {
        try handle.execute("""
            DELETE FROM changes WHERE seq IN (
                SELECT seq FROM changes
                WHERE recorded_at < ? AND seq < (SELECT COALESCE(MAX(seq), 0) FROM changes)
                LIMIT ?)
            """, cutoff, limit)
    }

    private static func change(_ row: StorageRow) throws -> Change? {
        // A kind this build does not know (a newer replica wrote it) has
        // no subscriber here, so it passes by without failing the feed.
        Change(sequence: try row.get("seq"), kind: ChangeKind(rawValue: try row.get("kind")), key: try row.get("key"),
                      userID: try row.get("user_id"), origin: try row.get("origin"))
    }
}

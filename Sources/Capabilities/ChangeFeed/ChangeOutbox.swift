/// The `changes` table: every client write records what it changed here in
/// its own transaction, at a **position** that followers read in order.
///
/// ## Positions, and why no lock is held to the commit
/// An identifier taken at insert becomes visible at commit, and transactions
/// commit out of order: a follower that read past a value another
/// transaction still holds would never see that transaction's rows. The two
/// backends close that gap differently.
///
/// SQLite has one writer at a time per file (across processes too): the row
/// is inserted in the request's savepoint and its `AUTOINCREMENT` `seq` is
/// the position, in commit order.
///
/// PostgreSQL: a row's position is at least its transaction's id shifted
/// left by `xidShift` (`pg_current_xact_id() << 16`, plus the row's place in
/// the batch), and a follower reads only positions below its snapshot's
/// `xmin << 16`: every transaction with an id below `xmin` has ended, so no
/// row can later appear below that horizon. Nothing is locked across
/// replicas; a long-running writing transaction anywhere in the cluster
/// holds the horizon back until it ends (`docs/change-feed.md`).
///
/// Transaction ids are taken at a transaction's first write, not at its
/// commit, so id order is not commit order: one batch can take its id, wait
/// on a user's row behind another batch with a higher id, and commit after
/// it. For the changes of one user to keep their commit order, the batch
/// locks the user's row in `change_users` (in user order, so batches cannot
/// deadlock on them) and places each row of that user after the user's
/// previous position: `GREATEST(own, previous + k)`. A user's positions
/// therefore strictly increase in commit order, and since a row's position
/// is never below its own transaction's id, the horizon rule still holds.
/// Positions of different users may tie; followers break ties by `seq`.
enum ChangeOutbox {
    /// The `LISTEN` channel; notified after each writing batch's COMMIT.
    static let channel = "axiom_changes"
    /// A PostgreSQL position's transaction id is `position >> xidShift`.
    static let xidShift: Int64 = 16

    /// Applied with the bookkeeping tables by both migration runners: the
    /// outbox belongs to the storage capability, not to a client.
    /// The user index leads with the row's span (`OutboxUserIndex`) and
    /// only then the user: a new row goes among the current span's few
    /// leaves, which a commit's writes share, where `(user_id, position)`
    /// put every write on a leaf of its own across the whole index.
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
        CREATE INDEX IF NOT EXISTS changes_by_user_span ON changes((seq >> \(OutboxUserIndex.sqlite.spanBits)), user_id, seq);
        CREATE INDEX IF NOT EXISTS changes_by_time ON changes(recorded_at);
        """

    /// Rows written before positions existed get position 0: below every
    /// new one, so a follower (which starts at the head) never reads them,
    /// and a `Last-Event-ID` from before cannot resume (its client reloads).
    static let postgresSchema = """
        CREATE TABLE IF NOT EXISTS changes (
            seq         BIGSERIAL PRIMARY KEY,
            kind        TEXT NOT NULL,
            key         TEXT NOT NULL,
            user_id     TEXT,
            origin      TEXT NOT NULL,
            recorded_at BIGINT NOT NULL
        );
        DO $$ BEGIN
            -- Looked up first: ALTER TABLE would take the table's exclusive
            -- lock on every start, queueing every writer behind any open
            -- transaction that read the outbox.
            IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
                           AND table_name = 'changes' AND column_name = 'position') THEN
                ALTER TABLE changes ADD COLUMN position BIGINT NOT NULL DEFAULT 0;
            END IF;
        END $$;
        CREATE TABLE IF NOT EXISTS change_users (
            user_id  TEXT PRIMARY KEY,
            position BIGINT NOT NULL,
            previous BIGINT NOT NULL DEFAULT 0
        );
        CREATE TABLE IF NOT EXISTS changes_pruned (
            id       BIGINT PRIMARY KEY CHECK (id = 1),
            position BIGINT NOT NULL
        );
        DROP INDEX IF EXISTS changes_by_user;
        DROP INDEX IF EXISTS changes_by_user_span;
        CREATE INDEX IF NOT EXISTS changes_by_position ON changes(position, seq);
        CREATE INDEX IF NOT EXISTS changes_by_user_position
            ON changes((position >> \(OutboxUserIndex.postgres.spanBits)), user_id, position);
        CREATE INDEX IF NOT EXISTS changes_by_time ON changes(recorded_at);
        """

    static let sqliteInsert = """
        INSERT INTO changes(kind, key, user_id, origin, recorded_at) VALUES(?, ?, ?, ?, unixepoch()) RETURNING seq
        """

    /// One statement for a batch's records, in their order: locks and
    /// advances each user's `change_users` row, places every record (see the
    /// type's notes) and inserts it; answers each record's position by its
    /// place in `records` (1-based `ord`).
    static let postgresInsert = """
        WITH input AS (
            SELECT kind, key, user_id, ord
            FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS t(kind, key, user_id, ord)),
        me AS (SELECT pg_current_xact_id()::text::bigint << \(xidShift) AS base),
        users AS (
            SELECT user_id, count(*) AS n, max(ord) AS last FROM input WHERE user_id IS NOT NULL GROUP BY user_id),
        locked AS (
            INSERT INTO change_users AS c (user_id, position, previous)
            SELECT u.user_id, me.base + u.last, 0 FROM users u CROSS JOIN me ORDER BY u.user_id
            ON CONFLICT (user_id) DO UPDATE
                SET previous = c.position,
                    position = GREATEST(EXCLUDED.position, c.position + (SELECT n FROM users WHERE users.user_id = c.user_id))
            RETURNING user_id, previous),
        placed AS (
            SELECT i.ord, i.kind, i.key, i.user_id,
                GREATEST(me.base + i.ord,
                         COALESCE(l.previous + row_number() OVER (PARTITION BY i.user_id ORDER BY i.ord), 0)) AS position
            FROM input i CROSS JOIN me LEFT JOIN locked l ON l.user_id = i.user_id),
        written AS (
            INSERT INTO changes(kind, key, user_id, origin, recorded_at, position)
            SELECT kind, key, user_id, $4, extract(epoch FROM now())::bigint, position FROM placed ORDER BY ord)
        SELECT ord, position FROM placed ORDER BY ord
        """

    /// The horizon on PostgreSQL, in the statement's snapshot (see the type's notes).
    static let postgresHorizon = "pg_snapshot_xmin(pg_current_snapshot())::text::bigint << \(xidShift)"

    /// `postgresInsert`'s arguments for `records`, written by `origin`.
    static func postgresInsertArguments(_ records: [ChangeRecord], origin: String) -> [StorageValue] {
        [.text(PostgresArray.literal(records.map { $0.kind.rawValue })),
         .text(PostgresArray.literal(records.map(\.key))),
         .text(PostgresArray.literal(records.map(\.userID))),
         .text(origin)]
    }

    /// Where a follower stands: every row before `(position, seq)` is read.
    struct Cursor: Sendable, Equatable {
        var position: Int64
        var seq: Int64
    }

    /// One read of committed rows after `cursor`, in position order, only
    /// below the horizon (`Read.horizon`), with what else the follower
    /// needs from the same moment.
    struct Read: Sendable {
        let rows: [Change]
        /// Every position below it is final: its rows are in `rows` or before the cursor.
        let horizon: Int64
        /// The newest committed position (the head).
        let head: Int64
        /// The smallest position a follower may stand after without missing pruned rows.
        let resumableAfter: Int64
        /// Committed rows at or above the horizon: written, not yet readable.
        let heldBack: Int
    }

    static func read(_ handle: any StorageHandle, after cursor: Cursor, limit: Int) throws -> Read {
        switch handle.dialect {
        case .sqlite:
            let rows = try handle.query("""
                SELECT seq, seq AS position, kind, key, user_id, origin FROM changes WHERE seq > ? ORDER BY seq LIMIT ?
                """, cursor.position, Int64(limit)).compactMap(change)
            let head = try self.head(handle)
            return Read(rows: rows, horizon: head + 1, head: head, resumableAfter: try resumableAfter(handle),
                        heldBack: 0)
        case .postgres:
            // The follower's scalars in one round trip, then the rows below the horizon.
            guard let state = try handle.queryOne("""
                WITH h AS (SELECT \(postgresHorizon) AS horizon)
                SELECT h.horizon,
                       (SELECT COALESCE(MAX(position), 0) FROM changes) AS head,
                       (SELECT COALESCE(MAX(position), 0) FROM changes_pruned) AS pruned,
                       (SELECT count(*) FROM changes WHERE position >= h.horizon) AS held
                FROM h
                """) else { throw StorageError.closed }
            let horizon: Int64 = try state.get("horizon")
            let head: Int64 = try state.get("head")
            let pruned: Int64 = try state.get("pruned")
            let held: Int64 = try state.get("held")
            let rows = try handle.query("""
                SELECT seq, position, kind, key, user_id, origin FROM changes
                WHERE (position, seq) > (?, ?) AND position < ? ORDER BY position, seq LIMIT ?
                """, cursor.position, cursor.seq, horizon, Int64(limit)).compactMap(change)
            return Read(rows: rows, horizon: horizon, head: head, resumableAfter: pruned, heldBack: Int(held))
        }
    }

    /// Every position below it is final (see the type's notes).
    static func horizon(_ handle: any StorageHandle) throws -> Int64 {
        switch handle.dialect {
        case .sqlite:
            return try head(handle) + 1
        case .postgres:
            guard let row = try handle.queryOne("""
                SELECT \(postgresHorizon) AS horizon
                """) else { throw StorageError.closed }
            return try row.get("horizon")
        }
    }

    /// The newest committed position (0 when the outbox is empty).
    static func head(_ handle: any StorageHandle) throws -> Int64 {
        let column = handle.dialect == .sqlite ? "seq" : "position"
        return try handle.queryOne("SELECT COALESCE(MAX(\(column)), 0) AS head FROM changes")?.get("head") ?? 0
    }

    /// The smallest position one may have seen and still be told exactly
    /// what came after it: on SQLite the one before the oldest kept row
    /// (sequences are consecutive but for rolled-back holes); on PostgreSQL,
    /// whose positions are sparse, the newest pruned position, which
    /// pruning records. 0 when nothing was pruned.
    static func resumableAfter(_ handle: any StorageHandle) throws -> Int64 {
        switch handle.dialect {
        case .sqlite:
            let oldest: Int64 = try handle.queryOne("SELECT COALESCE(MIN(seq), 0) AS oldest FROM changes")?
                .get("oldest") ?? 0
            return max(oldest - 1, 0)
        case .postgres:
            return try handle.queryOne("SELECT COALESCE(MAX(position), 0) AS pruned FROM changes_pruned")?
                .get("pruned") ?? 0
        }
    }

    /// Deletes up to `limit` rows recorded before `cutoff` (Unix seconds),
    /// keeping the newest row so the head survives an idle outbox; returns
    /// how many. `ChangeFeed` repeats it while a step deletes `limit`: an
    /// hour of changes is millions of rows, too many for one write of the
    /// batch every request shares.
    static func prune(_ handle: any StorageHandle, recordedBefore cutoff: Int64, limit: Int) throws -> Int {
        switch handle.dialect {
        case .sqlite:
            return try handle.execute("""
                DELETE FROM changes WHERE seq IN (
                    SELECT seq FROM changes
                    WHERE recorded_at < ? AND seq < (SELECT COALESCE(MAX(seq), 0) FROM changes)
                    LIMIT ?)
                """, cutoff, limit)
        case .postgres:
            let gone = try handle.queryOne("""
                WITH gone AS (
                    DELETE FROM changes WHERE seq IN (
                        SELECT seq FROM changes
                        WHERE recorded_at < ? AND position < (SELECT COALESCE(MAX(position), 0) FROM changes)
                        LIMIT ?)
                    RETURNING position),
                noted AS (
                    INSERT INTO changes_pruned(id, position) SELECT 1, MAX(position) FROM gone HAVING count(*) > 0
                    ON CONFLICT (id) DO UPDATE SET position = GREATEST(changes_pruned.position, EXCLUDED.position))
                SELECT count(*) AS gone FROM gone
                """, cutoff, limit)
            return Int(try gone?.get("gone") as Int64? ?? 0)
        }
    }

    private static func change(_ row: StorageRow) throws -> Change? {
        // A kind this build does not know (a newer replica wrote it) has
        // no subscriber here, so it passes by without failing the feed.
        Change(sequence: try row.get("position"), row: try row.get("seq"), kind: ChangeKind(rawValue: try row.get("kind")),
               key: try row.get("key"), userID: try row.get("user_id"), origin: try row.get("origin"))
    }
}

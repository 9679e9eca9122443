/// The `jobs` table: the one durable queue, on either backend. Applied with
/// the bookkeeping tables by both migration runners, like the change
/// outbox: any client's write transaction enqueues into it.
///
/// A job is `queued` (due at `run_at`; a failed attempt is queued again
/// later), `running` under a lease (`lease_owner` until `lease_until`; a
/// lease run out is taken over), `succeeded`, `dead` with `last_error`, or
/// `discarded` by an admin. The final three are kept until the retention
/// prunes them (`jobs_finished`). Every index but the key is partial, so
/// the common transitions (enqueue, claim, success) write few: the admins'
/// and the metrics' reads of queued, running and dead jobs use the partial
/// ones (`jobs_due`, `jobs_leased`, `jobs_dead`); other lists walk the key
/// newest first.
enum JobQueueSchema {
    static let sqliteSchema = """
        CREATE TABLE IF NOT EXISTS jobs (
            id           INTEGER PRIMARY KEY AUTOINCREMENT,
            kind         TEXT NOT NULL,
            payload      TEXT NOT NULL,
            unique_key   TEXT,
            state        TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'dead', 'discarded')),
            attempts     INTEGER NOT NULL DEFAULT 0,
            max_attempts INTEGER NOT NULL,
            sensitive    INTEGER NOT NULL DEFAULT 0,
            run_at       INTEGER NOT NULL,
            lease_owner  TEXT,
            lease_until  INTEGER,
            last_error   TEXT,
            created_at   INTEGER NOT NULL,
            finished_at  INTEGER
        ) STRICT;
        CREATE INDEX IF NOT EXISTS jobs_due ON jobs(run_at, id) WHERE state = 'queued';
        CREATE INDEX IF NOT EXISTS jobs_leased ON jobs(lease_until, id) WHERE state = 'running';
        CREATE UNIQUE INDEX IF NOT EXISTS jobs_unique ON jobs(kind, unique_key)
            WHERE unique_key IS NOT NULL AND state IN ('queued', 'running');
        CREATE INDEX IF NOT EXISTS jobs_finished ON jobs(finished_at) WHERE state IN ('succeeded', 'dead', 'discarded');
        CREATE INDEX IF NOT EXISTS jobs_dead ON jobs(id) WHERE state = 'dead';
        """

    static let postgresSchema = """
        CREATE TABLE IF NOT EXISTS jobs (
            id           BIGSERIAL PRIMARY KEY,
            kind         TEXT NOT NULL,
            payload      TEXT NOT NULL,
            unique_key   TEXT,
            state        TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'dead', 'discarded')),
            attempts     BIGINT NOT NULL DEFAULT 0,
            max_attempts BIGINT NOT NULL,
            sensitive    BIGINT NOT NULL DEFAULT 0,
            run_at       BIGINT NOT NULL,
            lease_owner  TEXT,
            lease_until  BIGINT,
            last_error   TEXT,
            created_at   BIGINT NOT NULL,
            finished_at  BIGINT
        );
        CREATE INDEX IF NOT EXISTS jobs_due ON jobs(run_at, id) WHERE state = 'queued';
        CREATE INDEX IF NOT EXISTS jobs_leased ON jobs(lease_until, id) WHERE state = 'running';
        CREATE UNIQUE INDEX IF NOT EXISTS jobs_unique ON jobs(kind, unique_key)
            WHERE unique_key IS NOT NULL AND state IN ('queued', 'running');
        CREATE INDEX IF NOT EXISTS jobs_finished ON jobs(finished_at) WHERE state IN ('succeeded', 'dead', 'discarded');
        CREATE INDEX IF NOT EXISTS jobs_dead ON jobs(id) WHERE state = 'dead';
        """
}

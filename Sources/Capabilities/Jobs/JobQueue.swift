import Domain

/// The queue's claims and outcomes, written once against `any
/// StorageHandle`: each function runs inside a write transaction (the
/// storage's group commit) and is pure over the handle, so it may run again.
///
/// A claim takes due `queued` jobs, and `running` ones whose lease ran out,
/// oldest first, sets the lease and counts the attempt. On PostgreSQL the
/// rows are chosen `FOR UPDATE SKIP LOCKED`, so replicas claiming at once
/// take different jobs without waiting on each other; SQLite has one
/// writer per file, which already serialises claims. An outcome is written
/// only while the claim it answers still holds (same owner, same attempt):
/// a job whose lease ran out and was taken over is the new holder's.
public enum JobQueue {
    static let claimedColumns = "id, kind, payload, unique_key, attempts, max_attempts, created_at"

    /// Up to `limit` jobs of `kinds` for `owner`, leased until `leaseUntil`:
    /// first those whose lease ran out, then the due ones.
    public static func claim(_ handle: any StorageHandle, kinds: [String], owner: String, now: Int64,
                             leaseUntil: Int64, limit: Int) throws -> [Job] {
        guard !kinds.isEmpty, limit > 0 else { return [] }
        let kindList = placeholders(kinds.count)
        let skipLocked = handle.dialect == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
        let kindValues = kinds.map(StorageValue.text)
        let takenOver = try handle.query("""
            UPDATE jobs SET attempts = attempts + 1, lease_owner = ?, lease_until = ?
            WHERE id IN (SELECT id FROM jobs WHERE state = 'running' AND lease_until < ? AND kind IN (\(kindList))
                         ORDER BY lease_until, id LIMIT ?\(skipLocked))
            RETURNING \(claimedColumns)
            """, arguments: [.text(owner), .integer(leaseUntil), .integer(now)] + kindValues + [.integer(Int64(limit))])
        let remaining = limit - takenOver.count
        guard remaining > 0 else { return try takenOver.map(job) }
        let due = try handle.query("""
            UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?, lease_until = ?
            WHERE id IN (SELECT id FROM jobs WHERE state = 'queued' AND run_at <= ? AND kind IN (\(kindList))
                         ORDER BY run_at, id LIMIT ?\(skipLocked))
            RETURNING \(claimedColumns)
            """, arguments: [.text(owner), .integer(leaseUntil), .integer(now)] + kindValues + [.integer(Int64(remaining))])
        // RETURNING gives the rows in no promised order: oldest first.
        return try (takenOver + due).map(job).sorted { $0.id < $1.id }
    }

    /// When a job of `kinds` can next be claimed (the earliest `run_at` of
    /// a queued one, or `lease_until` of a running one), nil when none
    /// waits. A read: the runner sleeps until then or its poll, whichever
    /// comes first, and claims (a write) only when something is due.
    public static func nextClaimable(_ handle: any StorageHandle, kinds: [String]) throws -> Int64? {
        guard !kinds.isEmpty else { return nil }
        let kindList = placeholders(kinds.count)
        let kindValues = kinds.map(StorageValue.text)
        let queued = try handle.queryOne(
            "SELECT MIN(run_at) FROM jobs WHERE state = 'queued' AND kind IN (\(kindList))", arguments: kindValues)
        let leased = try handle.queryOne(
            "SELECT MIN(lease_until) FROM jobs WHERE state = 'running' AND kind IN (\(kindList))", arguments: kindValues)
        let times = [try queued?.get(0, as: Int64?.self), try leased?.get(0, as: Int64?.self)].compactMap { $0 }
        return times.min()
    }

    /// The claims of `owner` on `ids` hold until `leaseUntil` (the runner
    /// renews the jobs it still runs).
    public static func renew(_ handle: any StorageHandle, ids: [Int64], owner: String, leaseUntil: Int64) throws {
        guard !ids.isEmpty else { return }
        try handle.enqueue("""
            UPDATE jobs SET lease_until = ?
            WHERE state = 'running' AND lease_owner = ? AND id IN (\(placeholders(ids.count)))
            """, arguments: [.integer(leaseUntil), .text(owner)] + ids.map(StorageValue.integer))
    }

    /// `job` succeeded: `succeeded` (a sensitive payload erased), or, for a
    /// periodic kind, queued again as its next run at `nextRunAt`.
    public static func succeed(_ handle: any StorageHandle, _ job: Job, owner: String, now: Int64,
                               nextRunAt: Int64?) throws {
        if let nextRunAt {
            try handle.enqueue("""
                UPDATE jobs SET state = 'queued', attempts = 0, run_at = ?, last_error = NULL,
                    lease_owner = NULL, lease_until = NULL, finished_at = ?
                WHERE id = ? AND state = 'running' AND lease_owner = ? AND attempts = ?
                """, arguments: [.integer(nextRunAt), .integer(now)] + holding(job, owner))
        } else {
            try handle.enqueue("""
                UPDATE jobs SET state = 'succeeded', finished_at = ?, lease_owner = NULL, lease_until = NULL,
                    payload = CASE WHEN sensitive = 1 THEN '{}' ELSE payload END
                WHERE id = ? AND state = 'running' AND lease_owner = ? AND attempts = ?
                """, arguments: [.integer(now)] + holding(job, owner))
        }
    }

    /// `job` failed with `error`: queued again at `retryAt`, keeping the error.
    public static func retry(_ handle: any StorageHandle, _ job: Job, owner: String, error: String,
                             retryAt: Int64) throws {
        try handle.enqueue("""
            UPDATE jobs SET state = 'queued', run_at = ?, last_error = ?, lease_owner = NULL, lease_until = NULL
            WHERE id = ? AND state = 'running' AND lease_owner = ? AND attempts = ?
            """, arguments: [.integer(retryAt), .text(error)] + holding(job, owner))
    }

    /// `job` is not due yet (`JobSnooze`): queued again at `runAt`, its
    /// attempt given back.
    public static func snooze(_ handle: any StorageHandle, _ job: Job, owner: String, runAt: Int64) throws {
        try handle.enqueue("""
            UPDATE jobs SET state = 'queued', run_at = ?, attempts = attempts - 1, lease_owner = NULL, lease_until = NULL
            WHERE id = ? AND state = 'running' AND lease_owner = ? AND attempts = ?
            """, arguments: [.integer(runAt)] + holding(job, owner))
    }

    /// `job` failed for good (its attempts ran out, or a `PermanentFailure`):
    /// `dead` with `error` (a sensitive payload erased). A periodic kind's
    /// next run is queued in the same transaction, at `nextRunAt`, so its
    /// chain outlives one bad run and admins still see the dead one.
    public static func bury(_ handle: any StorageHandle, _ job: Job, owner: String, error: String, now: Int64,
                            periodic: JobKind?, nextRunAt: Int64) throws {
        let buried = try handle.execute("""
            UPDATE jobs SET state = 'dead', last_error = ?, finished_at = ?, lease_owner = NULL, lease_until = NULL,
                payload = CASE WHEN sensitive = 1 THEN '{}' ELSE payload END
            WHERE id = ? AND state = 'running' AND lease_owner = ? AND attempts = ?
            """, arguments: [.text(error), .integer(now)] + holding(job, owner))
        if buried == 1, let periodic {
            try handle.enqueue(JobRequest(kind: periodic, payload: Array("{}".utf8), uniqueKey: JobKind.periodicKey,
                                          runAt: nextRunAt, enqueuedAt: now))
        }
    }

    /// Every periodic kind of `kinds` has its one job: enqueued due at
    /// `now` unless one is queued or running (its unique key), so replicas
    /// starting together make one.
    public static func ensurePeriodic(_ handle: any StorageHandle, kinds: [JobKind], now: Int64) throws {
        for kind in kinds where kind.intervalMilliseconds != nil {
            try handle.enqueue(JobRequest(kind: kind, payload: Array("{}".utf8), uniqueKey: JobKind.periodicKey,
                                          runAt: now))
        }
    }

    /// Deletes up to `limit` jobs that finished (succeeded, dead or
    /// discarded) before `before`; returns how many.
    public static func prune(_ handle: any StorageHandle, finishedBefore before: Int64, limit: Int) throws -> Int {
        try handle.execute("""
            DELETE FROM jobs WHERE id IN (
                SELECT id FROM jobs WHERE state IN ('succeeded', 'dead', 'discarded') AND finished_at < ?
                ORDER BY finished_at LIMIT ?)
            """, arguments: [.integer(before), .integer(Int64(limit))])
    }

    private static func holding(_ job: Job, _ owner: String) -> [StorageValue] {
        [.integer(job.id), .text(owner), .integer(Int64(job.attempt))]
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    private static func job(_ row: StorageRow) throws -> Job {
        Job(id: try row.get(0), kind: try row.get(1), payload: Array(try row.get(2, as: String.self).utf8),
            uniqueKey: try row.get(3), attempt: Int(try row.get(4, as: Int64.self)),
            maxAttempts: Int(try row.get(5, as: Int64.self)), createdAt: try row.get(6))
    }
}

import Axiom
import Capabilities
import Domain

/// The job queue as the runner and admins use it, over either backend
/// (`JobQueue`): claims under this process's lease, outcomes, lease
/// renewal, periodic jobs, the prune, and the admin's reads and actions.
/// Owns no state (the queue is the `jobs` table); enqueueing is not here
/// but in the write of whichever client's change causes the job
/// (`StorageHandle.enqueue`).
public actor JobClient: StatelessClient {
    public nonisolated let settings: JobRunnerSettings
    public nonisolated let outcomes = JobOutcomeCounters()
    let storage: StorageAccess
    private let clock: any TimeSource

    public init(storage: StorageAccess, clock: any TimeSource, settings: JobRunnerSettings = JobRunnerSettings()) {
        self.storage = storage
        self.clock = clock
        self.settings = settings
    }

    public func activate() async throws {}

    public func deactivate() async {}

    /// Now, by the clock capability, in milliseconds since 1970.
    public nonisolated var now: Int64 { clock.millisecondsSince1970() }

    // MARK: Reads

    /// When a job of `kinds` can next be claimed, nil when none waits.
    public nonisolated func nextClaimable(_ kinds: [JobKind]) async throws -> Int64? {
        let names = kinds.map(\.name)
        return try await storage.storedRead { try JobQueue.nextClaimable($0, kinds: names) }
    }

    /// `job_not_found`.
    public nonisolated func job(_ id: Int64) async throws -> JobRecord {
        guard let record = try await storage.storedRead({ try JobQueue.record($0, id: id) }) else {
            throw EntityError.notFound(entity: "job", id: String(id))
        }
        return record
    }

    /// The jobs `filter` keeps, newest first, `limit` at a time after
    /// `cursor` (the previous page's last id; one that is not a job id the
    /// service issued is `validation_failed` on `cursor`).
    public nonisolated func jobs(matching filter: JobFilter, limit: Int, after cursor: String?) async throws
        -> Page<JobRecord> {
        var position: Int64?
        if let cursor {
            guard let id = Int64(cursor), id > 0 else {
                throw ValidationError([FieldError(field: "cursor", code: .invalidFormat,
                                                  message: "cursor is not one this service issued")])
            }
            position = id
        }
        let after = position
        let count = max(0, limit)
        let read = try await storage.storedRead { try JobQueue.list($0, filter: filter, after: after, limit: count + 1) }
        return Page(readAhead: read, limit: count) { String($0.id) }
    }

    /// Per kind: queued, running and dead jobs, and the oldest due job's age.
    public nonisolated func statistics() async throws -> [JobKindStatistics] {
        let now = self.now
        return try await storage.storedRead { try JobQueue.statistics($0, now: now) }
    }

    // MARK: Writes

    /// Up to `limit` due jobs of `kinds` for this process, under its lease.
    public func claim(_ kinds: [JobKind], limit: Int) async throws -> [Job] {
        let names = kinds.map(\.name)
        let (owner, now) = (settings.owner, self.now)
        let leaseUntil = now + settings.lease.milliseconds
        return try await storage.durableWrite {
            try JobQueue.claim($0, kinds: names, owner: owner, now: now, leaseUntil: leaseUntil, limit: limit)
        }
    }

    /// The leases of `jobs`, still running here, run a lease from now.
    public func renew(_ jobs: [Int64]) async throws {
        guard !jobs.isEmpty else { return }
        let owner = settings.owner
        let leaseUntil = now + settings.lease.milliseconds
        try await storage.durableWrite { try JobQueue.renew($0, ids: jobs, owner: owner, leaseUntil: leaseUntil) }
    }

    /// `job` of `kind` succeeded (a periodic kind's next run queued in the
    /// same transaction).
    public func succeeded(_ job: Job, of kind: JobKind) async throws {
        let (owner, now) = (settings.owner, self.now)
        let next = kind.intervalMilliseconds.map { now + $0 }
        try await storage.durableWrite { try JobQueue.succeed($0, job, owner: owner, now: now, nextRunAt: next) }
        outcomes.record(kind.name) { $0.succeeded += 1 }
    }

    /// `job` of `kind` failed with `error`: queued again after its back-off,
    /// or `dead` when it was its last attempt or the error is a
    /// `PermanentFailure`. Answers whether it is dead.
    @discardableResult
    public func failed(_ job: Job, of kind: JobKind, error: any Error) async throws -> Bool {
        let (owner, now) = (settings.owner, self.now)
        if let snooze = error as? any JobSnooze {
            let runAt = now + max(0, snooze.delayMilliseconds)
            try await storage.durableWrite { try JobQueue.snooze($0, job, owner: owner, runAt: runAt) }
            return false
        }
        let permanent = error as? any PermanentFailure
        let text = Self.describe(permanent?.reason ?? String(describing: error))
        if permanent != nil || job.attempt >= job.maxAttempts {
            let next = now + (kind.intervalMilliseconds ?? 0)
            let periodic = kind.intervalMilliseconds == nil ? nil : kind
            try await storage.durableWrite {
                try JobQueue.bury($0, job, owner: owner, error: text, now: now, periodic: periodic, nextRunAt: next)
            }
            outcomes.record(kind.name) { $0.failedAttempts += 1; $0.died += 1 }
            return true
        } else {
            let retryAt = now + JobBackoff.delay(afterAttempt: job.attempt, interval: kind.intervalMilliseconds,
                                                 unit: Double.random(in: 0..<1))
            try await storage.durableWrite { try JobQueue.retry($0, job, owner: owner, error: text, retryAt: retryAt) }
            outcomes.record(kind.name) { $0.failedAttempts += 1 }
            return false
        }
    }

    /// Each periodic kind of `kinds` has its one job (unique key).
    public func ensurePeriodic(_ kinds: [JobKind]) async throws {
        let periodic = kinds.filter { $0.intervalMilliseconds != nil }
        guard !periodic.isEmpty else { return }
        let now = self.now
        try await storage.durableWrite { try JobQueue.ensurePeriodic($0, kinds: periodic, now: now) }
    }

    /// Deletes finished jobs older than the retention, a bounded batch per
    /// write; returns how many went.
    public func pruneFinished() async throws -> Int {
        let before = now - settings.retention.milliseconds
        var removed = 0
        while true {
            let batch = try await storage.durableWrite {
                try JobQueue.prune($0, finishedBefore: before, limit: Self.pruneBatch)
            }
            removed += batch
            if batch < Self.pruneBatch { return removed }
        }
    }

    /// A dead job queued again with its attempts reset (`job_state_conflict`
    /// for any other state).
    public func retry(_ id: Int64) async throws -> JobRecord {
        let now = self.now
        return try await storage.durableWrite { try JobQueue.retry($0, id: id, now: now) }
    }

    /// A queued or dead job `discarded` (`job_state_conflict` while running
    /// or finished).
    public func discard(_ id: Int64) async throws -> JobRecord {
        let now = self.now
        return try await storage.durableWrite { try JobQueue.discard($0, id: id, now: now) }
    }

    static let pruneBatch = 1000

    /// An error as the job's record keeps it: bounded, so a huge message
    /// cannot bloat the row.
    private static func describe(_ text: String) -> String {
        text.count > 2000 ? String(text.prefix(2000)) + "…" : text
    }
}

import Axiom
import Domain
import JobClient

/// The process's job runner: makes one of each `JobWork` the composition
/// root lists (`JobWorks`), claims due jobs of their kinds under this
/// process's lease, runs at most `jobs_concurrency` at once, records each
/// outcome (success, a retry after back-off, or dead) and renews the
/// leases of the jobs still running. It looks at the queue when its poll
/// comes round, or sooner when the next claimable job is due earlier (a
/// scheduled job, a periodic run, a retry), and at once when a job
/// finished while it was full. One instance for the whole process, made by
/// the orchestrator at start-up; `start()` and `stop()` bracket its run.
///
/// A job is run at least once: a process killed between a job's work and
/// its record, or one that stalls past its lease, lets another take it over.
public actor JobRunnerContext: Context {
    public nonisolated let identity: ContextIdentity
    nonisolated let jobs: ClientHandle<JobClient>
    /// Each kind this process runs, with its work.
    nonisolated let works: [String: (kind: JobKind, work: any JobWork)]
    nonisolated let kinds: [JobKind]
    private let wakeup = JobWakeup()
    private var loop: Task<Void, Never>?
    private var running: [Int64: Task<Void, Never>] = [:]
    private var observer: (@Sendable (JobOutcome) -> Void)?

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        jobs = try creation.client(JobClient.self)
        var works: [String: (kind: JobKind, work: any JobWork)] = [:]
        var kinds: [JobKind] = []
        for type in creation.composition(JobWorks.self)?.types ?? [] {
            let work = try type.init(creation)
            for kind in type.kinds where works[kind.name] == nil {
                works[kind.name] = (kind, work)
                kinds.append(kind)
            }
        }
        self.works = works
        self.kinds = kinds
    }

    /// The kinds this process runs, in the order their works were listed.
    public nonisolated var runnableKinds: [JobKind] { kinds }

    /// Jobs running in this process now.
    public var runningCount: Int { running.count }

    /// Starts claiming; `observer` hears each attempt's outcome with what
    /// its work recorded (`JobEvents`). The periodic kinds' jobs are
    /// ensured first (and again every lease, so a chain an admin discarded
    /// comes back).
    public func start(observer: (@Sendable (JobOutcome) -> Void)? = nil) {
        guard loop == nil, !kinds.isEmpty else { return }
        self.observer = observer
        loop = Task { await self.run() }
    }

    /// Stops claiming, lets the running jobs finish for up to `grace`, then
    /// cancels the rest: their leases lapse and another process (or this
    /// one's next start) takes them over.
    public func stop(grace: Duration = .seconds(10)) async {
        loop?.cancel()
        await loop?.value
        loop = nil
        let deadline = ContinuousClock.now + grace
        while !running.isEmpty, ContinuousClock.now < deadline {
            await wakeup.wait(for: .milliseconds(20))
        }
        for task in running.values { task.cancel() }
        for task in running.values { await task.value }
        running = [:]
    }

    private func run() async {
        let settings = jobs.call { $0.settings }
        let renewEvery = settings.lease / 3
        var lastRenewal = ContinuousClock.now
        var lastEnsured: ContinuousClock.Instant?
        while !Task.isCancelled {
            if lastEnsured.map({ ContinuousClock.now - $0 >= settings.lease }) ?? true {
                if (try? await jobs.call({ try await $0.ensurePeriodic(kinds) })) != nil {
                    lastEnsured = ContinuousClock.now
                }
            }
            var pause = settings.pollInterval
            let free = settings.concurrency - running.count
            if free > 0, let next = try? await jobs.call({ try await $0.nextClaimable(kinds) }) {
                let wait = next - jobs.call { $0.now }
                if wait <= 0 {
                    if let claimed = try? await jobs.call({ try await $0.claim(kinds, limit: free) }) {
                        for job in claimed { launch(job) }
                        // A full batch: more may be due at once.
                        if claimed.count == free { pause = .zero }
                    }
                } else {
                    pause = min(pause, .milliseconds(wait))
                }
            }
            if ContinuousClock.now - lastRenewal >= renewEvery, !running.isEmpty {
                let ids = Array(running.keys)
                if (try? await jobs.call({ try await $0.renew(ids) })) != nil { lastRenewal = ContinuousClock.now }
            }
            if pause > .zero { await wakeup.wait(for: pause) }
        }
    }

    private func launch(_ job: Job) {
        guard let (kind, work) = works[job.kind] else { return }
        let (jobs, observer) = (self.jobs, self.observer)
        running[job.id] = Task {
            let events = JobEvents()
            var result = JobOutcome.Result.succeeded
            do {
                // Taken over past its last attempt: its lease lapsed on it.
                if job.attempt > job.maxAttempts { throw LeaseLapsedOnLastAttempt(attempts: job.attempt) }
                try await JobEvents.$current.withValue(events) { try await work.run(job) }
                try? await jobs.call { try await $0.succeeded(job, of: kind) }
            } catch {
                // Not recorded (storage away, or shut down before it was):
                // the lease lapses and the job runs again.
                if !Task.isCancelled, let dead = try? await jobs.call({ try await $0.failed(job, of: kind, error: error) }) {
                    result = error is any JobSnooze ? .snoozed
                        : .failed(error: (error as? any PermanentFailure)?.reason ?? String(describing: error), dead: dead)
                }
            }
            observer?(JobOutcome(kind: job.kind, jobID: job.id, attempt: job.attempt, result: result, events: events.all))
            await self.finished(job.id)
        }
    }

    private func finished(_ id: Int64) {
        running[id] = nil
        wakeup.signal()
    }
}

extension JobRunnerContext {
    /// The queue per kind (queued, running, dead, the oldest due job's
    /// age), read from storage: the same on every replica.
    public func queueStatistics() async throws -> [JobKindStatistics] {
        try await jobs.call { try await $0.statistics() }
    }

    /// What this process's runner finished, per kind, since start-up.
    public nonisolated var outcomes: [String: JobOutcomeCounters.Counts] {
        jobs.call { $0.outcomes.snapshot }
    }
}

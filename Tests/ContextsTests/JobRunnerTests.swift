import Axiom
import AxiomTestSupport
import Capabilities
import Contexts
import Domain
import JobClient
import Synchronization
import Testing

/// What the test works saw, shared with the test (the runner makes the works).
private enum Seen {
    static let payloads = Mutex<[String]>([])
    static let running = Atomic(0)
    static let mostAtOnce = Atomic(0)
    static let ticks = Atomic(0)

    static func reset() {
        payloads.withLock { $0 = [] }
        running.store(0, ordering: .relaxed)
        mostAtOnce.store(0, ordering: .relaxed)
        ticks.store(0, ordering: .relaxed)
    }
}

private struct RecordingWork: JobWork {
    static let record = JobKind("test.record")
    static let kinds = [record]

    init(_ creation: ContextCreation) throws {}

    func run(_ job: Job) async throws {
        let now = Seen.running.add(1, ordering: .relaxed).newValue
        Seen.mostAtOnce.max(now, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(20))
        Seen.running.subtract(1, ordering: .relaxed)
        Seen.payloads.withLock { $0.append(String(decoding: job.payload, as: UTF8.self)) }
    }
}

private struct FailingWork: JobWork {
    static let permanent = JobKind("test.permanent", maxAttempts: 5)
    static let transient = JobKind("test.transient", maxAttempts: 5)
    static let once = JobKind("test.once", maxAttempts: 1)
    static let kinds = [permanent, transient, once]

    struct Refused: PermanentFailure {
        var reason: String { "the recipient is gone" }
    }

    struct Flaky: Error, CustomStringConvertible {
        var description: String { "try later" }
    }

    init(_ creation: ContextCreation) throws {}

    func run(_ job: Job) async throws {
        if job.kind == Self.permanent.name { throw Refused() }
        throw Flaky()
    }
}

private struct TickWork: JobWork {
    static let tick = JobKind("test.tick", every: .milliseconds(50))
    static let kinds = [tick]

    init(_ creation: ContextCreation) throws {}

    func run(_ job: Job) async throws {
        Seen.ticks.add(1, ordering: .relaxed)
    }
}

/// The runner over a real orchestrator and storage, with the system clock:
/// it claims what is due, runs it with bounded concurrency, records each
/// outcome and keeps a periodic kind going. A second storage instance on
/// the same database enqueues, as another process would.
@Suite(.serialized) struct JobRunnerTests {
    static func withRunner(_ backend: StorageBackend,
                           _ body: (JobRunnerContext, any StorageCapability) async throws -> Void) async throws {
        Seen.reset()
        let directory = try TempDirectory(prefix: "job-runner")
        let database = try await backend.database(at: directory.path("jobs.db"))
        let orchestrator = try await acquireOrchestrator()
        let other: any StorageCapability
        do {
            let storageType = try await backend.register(on: orchestrator, database: database, migrations: [])
            try await orchestrator.registerCapability(SystemClockCapability.self) { SystemClockCapability() }
            let settings = JobRunnerSettings(concurrency: 2, pollInterval: .milliseconds(20), lease: .seconds(5),
                                             owner: "runner-test")
            try orchestrator.registerClient(JobClient.self, dependencies: [storageType, SystemClockCapability.self]) {
                JobClient(storage: try backend.access($0), clock: try $0.handle(SystemClockCapability.self).current,
                          settings: settings)
            }
            try orchestrator.compose(JobRunnerContext.self,
                                     with: JobWorks([RecordingWork.self, FailingWork.self, TickWork.self]))
            try await orchestrator.start()
            switch backend {
            case .sqlite: other = try await SQLiteStorage.open(StorageConfiguration(path: database), migrations: [])
            case .postgres: other = try await PostgresStorage.open(PostgresConfiguration(url: database), migrations: [])
            }
        } catch {
            await orchestrator.shutdownClosingStorage()
            throw error
        }
        let runner = try await orchestrator.createContext(JobRunnerContext.self, parent: nil)
        await runner.start()
        try await withCleanup({
            await runner.stop()
            await other.close()
            await orchestrator.shutdownClosingStorage()
        }) {
            try await body(runner, other)
        }
    }

    static func now() -> Int64 { SystemClockCapability().millisecondsSince1970() }

    static func enqueue(_ storage: any StorageCapability, _ kind: JobKind, payload: String = "{}",
                        at runAt: Int64 = now()) async throws {
        try await storage.writeTransaction {
            try $0.enqueue(JobRequest(kind: kind, payload: Array(payload.utf8), runAt: runAt))
        }
    }

    static func jobs(_ storage: any StorageCapability, _ kind: JobKind) async throws -> [JobRecord] {
        try await storage.readTransaction { try JobQueue.list($0, filter: JobFilter(kind: kind.name), after: nil, limit: 100) }
    }

    /// Waits (polling, up to 10 s) until `condition` holds.
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    @Test(arguments: StorageBackend.all)
    func everyJobRunsOnceWithinTheConcurrencyBound(backend: StorageBackend) async throws {
        try await Self.withRunner(backend) { runner, storage in
            for index in 0..<10 { try await Self.enqueue(storage, RecordingWork.record, payload: "{\"n\":\(index)}") }
            #expect(try await Self.eventually {
                try await Self.jobs(storage, RecordingWork.record).allSatisfy { $0.state == .succeeded }
            })
            let payloads = Seen.payloads.withLock { $0 }
            #expect(payloads.sorted() == (0..<10).map { "{\"n\":\($0)}" }.sorted())
            #expect(Seen.mostAtOnce.load(ordering: .relaxed) <= 2)
            #expect(runner.outcomes[RecordingWork.record.name]?.succeeded == 10)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aPermanentFailureIsDeadAtOnceAndAnotherErrorIsRetriedAfterItsBackOff(backend: StorageBackend) async throws {
        try await Self.withRunner(backend) { _, storage in
            try await Self.enqueue(storage, FailingWork.permanent)
            try await Self.enqueue(storage, FailingWork.transient)
            try await Self.enqueue(storage, FailingWork.once)
            #expect(try await Self.eventually {
                try await Self.jobs(storage, FailingWork.permanent).first?.state == .dead
            })
            let dead = try #require(try await Self.jobs(storage, FailingWork.permanent).first)
            #expect(dead.attempts == 1 && dead.lastError == "the recipient is gone")
            #expect(try await Self.eventually {
                try await Self.jobs(storage, FailingWork.transient).first?.lastError != nil
            })
            let retried = try #require(try await Self.jobs(storage, FailingWork.transient).first)
            #expect(retried.state == .queued && retried.attempts == 1 && retried.lastError == "try later")
            // The first retry waits 2 s ± 25 %.
            let wait = retried.runAt - Self.now()
            #expect(wait > 1000 && wait <= 2500, "\(wait) ms")
            #expect(try await Self.eventually { try await Self.jobs(storage, FailingWork.once).first?.state == .dead })
            let last = try #require(try await Self.jobs(storage, FailingWork.once).first)
            #expect(last.lastError == "try later" && last.attempts == 1)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aScheduledJobWaitsAndAPeriodicKindKeepsRunningAsOneJob(backend: StorageBackend) async throws {
        try await Self.withRunner(backend) { _, storage in
            let runAt = Self.now() + 400
            try await Self.enqueue(storage, RecordingWork.record, payload: #"{"later":true}"#, at: runAt)
            #expect(try await Self.eventually { Seen.ticks.load(ordering: .relaxed) >= 4 })
            #expect(try await Self.jobs(storage, TickWork.tick).count == 1, "one row, queued again each run")
            // Its success is recorded after its work returns.
            #expect(try await Self.eventually {
                try await Self.jobs(storage, RecordingWork.record).first?.state == .succeeded
            })
            #expect(!Seen.payloads.withLock { $0.isEmpty })
            let ran = try #require(try await Self.jobs(storage, RecordingWork.record).first)
            #expect(ran.state == .succeeded && (ran.finishedAt ?? 0) >= runAt)
        }
    }

    @Test func backOffGrowsWithTheAttemptUpToItsCapAndAPeriodicKindsInterval() {
        for attempt in 1...12 {
            let low = JobBackoff.delay(afterAttempt: attempt, interval: nil, unit: 0)
            let high = JobBackoff.delay(afterAttempt: attempt, interval: nil, unit: 0.999_999)
            let base = min(Int64(1) << attempt * 1000, JobBackoff.cap)
            #expect(low == base * 3 / 4 && high <= base * 5 / 4 && high > base, "attempt \(attempt)")
            if attempt > 1 {
                #expect(low > JobBackoff.delay(afterAttempt: attempt - 1, interval: nil, unit: 0) || base == JobBackoff.cap)
            }
        }
        #expect(JobBackoff.delay(afterAttempt: 30, interval: nil, unit: 0.5) == JobBackoff.cap)
        #expect(JobBackoff.delay(afterAttempt: 5, interval: 500, unit: 0.5) == 500)
    }
}

import AxiomTestSupport
import Domain
import Foundation
import Synchronization
import Testing
@testable import Capabilities

/// The job queue's store (`JobQueue`) on each backend: enqueue inside a
/// write, claims under a lease, outcomes, back-off, unique keys, periodic
/// kinds. Times are the test's own (milliseconds), so nothing sleeps.
@Suite struct JobQueueTests {
    /// Which claimer holds each job, and how often a job was held twice.
    final class Claims: Sendable {
        let held = Mutex<[Int64: String]>([:])
        let doubles = Atomic(0)
    }

    static let mail = JobKind("test.mail", maxAttempts: 3)
    static let secret = JobKind("test.secret", maxAttempts: 1, sensitive: true)
    static let tick = JobKind("test.tick", every: .seconds(10), maxAttempts: 2)

    /// Two storage instances on one database: one file, or one schema.
    static func pair(_ backend: StorageBackend) async throws -> (any StorageCapability, any StorageCapability, Any) {
        switch backend {
        case .sqlite:
            let directory = try TempDirectory()
            let path = directory.path("jobs.sqlite")
            let first = try await SQLiteStorage.open(StorageConfiguration(path: path), migrations: [])
            let second = try await SQLiteStorage.open(StorageConfiguration(path: path), migrations: [])
            return (first, second, directory)
        case .postgres:
            let url = try await StorageBackend.freshSchemaURL()
            let first = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: [])
            let second = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: [])
            return (first, second, url)
        }
    }

    static func enqueue(_ storage: any StorageCapability, _ kind: JobKind, key: String? = nil, at runAt: Int64 = 0,
                        payload: String = "{}") async throws -> Bool {
        try await storage.writeTransaction {
            try $0.enqueue(JobRequest(kind: kind, payload: Array(payload.utf8), uniqueKey: key, runAt: runAt))
        }
    }

    static func claim(_ storage: any StorageCapability, _ kinds: [JobKind], owner: String = "a", now: Int64,
                      lease: Int64 = 1000, limit: Int = 10) async throws -> [Job] {
        let names = kinds.map(\.name)
        return try await storage.writeTransaction {
            try JobQueue.claim($0, kinds: names, owner: owner, now: now, leaseUntil: now + lease, limit: limit)
        }
    }

    static func record(_ storage: any StorageCapability, _ id: Int64) async throws -> JobRecord {
        try #require(try await storage.readTransaction { try JobQueue.record($0, id: id) })
    }

    @Test(arguments: StorageBackend.all)
    func aJobEnqueuedInAWriteThatThrowsIsNotThere(backend: StorageBackend) async throws {
        let opened = try await backend.open()
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await opened.storage.writeTransaction { handle in
                try handle.enqueue(JobRequest(kind: Self.mail, payload: Array("{}".utf8), runAt: 0))
                throw Refused()
            }
        }
        #expect(try await Self.enqueue(opened.storage, Self.mail))
        let claimed = try await Self.claim(opened.storage, [Self.mail], now: 1)
        #expect(claimed.count == 1, "only the committed one")
        await opened.storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func twoClaimersNeverHoldOneJobAndEveryJobRuns(backend: StorageBackend) async throws {
        let (first, second, keep) = try await Self.pair(backend)
        let total = 200
        try await first.writeTransaction { handle in
            for index in 0..<total {
                try handle.enqueue(JobRequest(kind: Self.mail, payload: Array("{\"n\":\(index)}".utf8), runAt: 0))
            }
        }
        let claims = Claims()
        await withTaskGroup(of: Void.self) { group in
            for (storage, owner) in [(first, "a"), (second, "b"), (first, "c"), (second, "d")] {
                group.addTask {
                    while true {
                        guard let jobs = try? await Self.claim(storage, [Self.mail], owner: owner, now: 1,
                                                                lease: 60_000, limit: 7), !jobs.isEmpty else { return }
                        for job in jobs {
                            if claims.held.withLock({ $0.updateValue(owner, forKey: job.id) }) != nil {
                                claims.doubles.add(1, ordering: .relaxed)
                            }
                        }
                        try? await storage.writeTransaction { handle in
                            for job in jobs { try JobQueue.succeed(handle, job, owner: owner, now: 2, nextRunAt: nil) }
                        }
                    }
                }
            }
        }
        #expect(claims.doubles.load(ordering: .relaxed) == 0)
        #expect(claims.held.withLock { $0.count } == total)
        let owners = Set(claims.held.withLock { $0.values })
        #expect(owners.count > 1, "both claimers took jobs: \(owners)")
        let statistics = try await first.readTransaction { try JobQueue.statistics($0, now: 3) }
        #expect(statistics.allSatisfy { $0.queued == 0 && $0.running == 0 })
        let succeeded = try await first.readTransaction {
            try $0.queryOne("SELECT COUNT(*) FROM jobs WHERE state = 'succeeded'")?.get(0, as: Int64.self)
        }
        #expect(succeeded == Int64(total))
        await first.close()
        await second.close()
        _ = keep
    }

    @Test(arguments: StorageBackend.all)
    func aLeaseRunOutIsTakenOverAndTheOldHolderCannotRecord(backend: StorageBackend) async throws {
        let opened = try await backend.open()
        #expect(try await Self.enqueue(opened.storage, Self.mail))
        let first = try #require(try await Self.claim(opened.storage, [Self.mail], owner: "a", now: 10, lease: 100).first)
        #expect(first.attempt == 1)
        #expect(try await Self.claim(opened.storage, [Self.mail], owner: "b", now: 109).isEmpty, "lease still holds")
        let taken = try #require(try await Self.claim(opened.storage, [Self.mail], owner: "b", now: 111).first)
        #expect(taken.id == first.id && taken.attempt == 2)
        // The first holder's late success is not recorded: the job is b's.
        try await opened.storage.writeTransaction { try JobQueue.succeed($0, first, owner: "a", now: 112, nextRunAt: nil) }
        var stored = try await Self.record(opened.storage, first.id)
        #expect(stored.state == .running && stored.leaseOwner == "b")
        try await opened.storage.writeTransaction { try JobQueue.succeed($0, taken, owner: "b", now: 113, nextRunAt: nil) }
        stored = try await Self.record(opened.storage, first.id)
        #expect(stored.state == .succeeded && stored.finishedAt == 113 && stored.attempts == 2)
        await opened.storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func renewalKeepsALeaseThatWouldHaveRunOut(backend: StorageBackend) async throws {
        let opened = try await backend.open()
        #expect(try await Self.enqueue(opened.storage, Self.mail))
        let job = try #require(try await Self.claim(opened.storage, [Self.mail], owner: "a", now: 10, lease: 100).first)
        try await opened.storage.writeTransaction { try JobQueue.renew($0, ids: [job.id], owner: "a", leaseUntil: 500) }
        #expect(try await Self.claim(opened.storage, [Self.mail], owner: "b", now: 200).isEmpty)
        #expect(try await Self.claim(opened.storage, [Self.mail], owner: "b", now: 501).count == 1)
        await opened.storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func failuresAreQueuedAgainUntilTheLastAttemptThenDeadWithTheLastError(backend: StorageBackend) async throws {
        let opened = try await backend.open()
        #expect(try await Self.enqueue(opened.storage, Self.mail))
        var now: Int64 = 1
        var id: Int64 = 0
        for attempt in 1...Self.mail.maxAttempts {
            let job = try #require(try await Self.claim(opened.storage, [Self.mail], now: now).first)
            #expect(job.attempt == attempt)
            id = job.id
            if attempt < job.maxAttempts {
                let retryAt = now + 1000 * Int64(attempt)
                try await opened.storage.writeTransaction {
                    try JobQueue.retry($0, job, owner: "a", error: "failure \(attempt)", retryAt: retryAt)
                }
                #expect(try await Self.claim(opened.storage, [Self.mail], now: retryAt - 1).isEmpty, "waits its back-off")
                let stored = try await Self.record(opened.storage, id)
                #expect(stored.state == .queued && stored.lastError == "failure \(attempt)" && stored.runAt == retryAt)
                now = retryAt
            } else {
                let at = now
                try await opened.storage.writeTransaction {
                    try JobQueue.bury($0, job, owner: "a", error: "failure \(attempt)", now: at, periodic: nil,
                                      nextRunAt: at)
                }
            }
        }
        let dead = try await Self.record(opened.storage, id)
        #expect(dead.state == .dead && dead.lastError == "failure 3" && dead.attempts == 3 && dead.finishedAt == now)
        #expect(try await Self.claim(opened.storage, [Self.mail], now: now + 1_000_000).isEmpty)
        await opened.storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func aSensitivePayloadIsErasedWhenTheJobFinishesAndNeverShown(backend: StorageBackend) async throws {
        let opened = try await backend.open()
        #expect(try await Self.enqueue(opened.storage, Self.secret, payload: #"{"token":"s3cret"}"#))
        let job = try #require(try await Self.claim(opened.storage, [Self.secret], now: 1).first)
        #expect(String(decoding: job.payload, as: UTF8.self) == #"{"token":"s3cret"}"#, "the work gets it")
        #expect(try await Self.record(opened.storage, job.id).payload == nil, "admins do not")
        try await opened.storage.writeTransaction {
            try JobQueue.bury($0, job, owner: "a", error: "refused", now: 2, periodic: nil, nextRunAt: 2)
        }
        let stored = try await opened.storage.readTransaction {
            try $0.queryOne("SELECT payload FROM jobs WHERE id = ?", job.id)?.get(0, as: String.self)
        }
        #expect(stored == "{}")
        await #expect(throws: JobError.payloadErased(id: job.id)) {
            try await opened.storage.writeTransaction { try JobQueue.retry($0, id: job.id, now: 3) }
        }
        await opened.storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func aUniqueKeyHoldsWhileQueuedOrRunningAndIsFreedWhenFinished(backend: StorageBackend) async throws {
        let opened = try await backend.open()
        #expect(try await Self.enqueue(opened.storage, Self.mail, key: "order-1"))
        #expect(try await !Self.enqueue(opened.storage, Self.mail, key: "order-1"), "queued: a no-op")
        #expect(try await Self.enqueue(opened.storage, Self.mail, key: "order-2"))
        let jobs = try await Self.claim(opened.storage, [Self.mail], now: 1)
        #expect(jobs.count == 2)
        #expect(try await !Self.enqueue(opened.storage, Self.mail, key: "order-1"), "running: a no-op")
        let first = try #require(jobs.first { $0.uniqueKey == "order-1" })
        try await opened.storage.writeTransaction { try JobQueue.succeed($0, first, owner: "a", now: 2, nextRunAt: nil) }
        #expect(try await Self.enqueue(opened.storage, Self.mail, key: "order-1"), "finished: a new one")
        await opened.storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func aScheduledJobWaitsForItsTimeAndOtherKindsAreNotClaimed(backend: StorageBackend) async throws {
        let opened = try await backend.open()
        #expect(try await Self.enqueue(opened.storage, Self.mail, at: 5000))
        #expect(try await Self.enqueue(opened.storage, Self.secret, at: 0))
        #expect(try await opened.storage.readTransaction { try JobQueue.nextClaimable($0, kinds: [Self.mail.name]) } == 5000)
        #expect(try await Self.claim(opened.storage, [Self.mail], now: 4999).isEmpty)
        let due = try await Self.claim(opened.storage, [Self.mail], now: 5000)
        #expect(due.map(\.kind) == [Self.mail.name])
        await opened.storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func aPeriodicKindHasOneJobQueuedAgainByItsCompletionAndAfterItDies(backend: StorageBackend) async throws {
        let (first, second, keep) = try await Self.pair(backend)
        // Two processes starting together make one.
        async let a: Void = first.writeTransaction { try JobQueue.ensurePeriodic($0, kinds: [Self.tick, Self.mail], now: 0) }
        async let b: Void = second.writeTransaction { try JobQueue.ensurePeriodic($0, kinds: [Self.tick], now: 0) }
        _ = try await (a, b)
        let count = try await first.readTransaction {
            try $0.queryOne("SELECT COUNT(*) FROM jobs")?.get(0, as: Int64.self)
        }
        #expect(count == 1, "one periodic job, none for the kind without an interval")
        let job = try #require(try await Self.claim(first, [Self.tick], owner: "a", now: 1).first)
        #expect(try await Self.claim(second, [Self.tick], owner: "b", now: 1).isEmpty, "one process at a time")
        try await first.writeTransaction { try JobQueue.succeed($0, job, owner: "a", now: 2, nextRunAt: 10_002) }
        var stored = try await Self.record(first, job.id)
        #expect(stored.state == .queued && stored.runAt == 10_002 && stored.attempts == 0)
        #expect(try await Self.claim(second, [Self.tick], owner: "b", now: 10_001).isEmpty)
        let next = try #require(try await Self.claim(second, [Self.tick], owner: "b", now: 10_002).first)
        #expect(next.id == job.id, "the same row, run again")
        try await second.writeTransaction {
            try JobQueue.bury($0, next, owner: "b", error: "broken", now: 10_003, periodic: Self.tick, nextRunAt: 20_003)
        }
        stored = try await Self.record(first, job.id)
        #expect(stored.state == .dead && stored.lastError == "broken")
        let successor = try #require(try await Self.claim(first, [Self.tick], now: 20_003).first)
        #expect(successor.id != job.id, "a dead run leaves a next one queued")
        await first.close()
        await second.close()
        _ = keep
    }

    @Test(arguments: StorageBackend.all)
    func retryAndDiscardTakeOnlyTheStatesTheyAllow(backend: StorageBackend) async throws {
        let opened = try await backend.open()
        #expect(try await Self.enqueue(opened.storage, Self.mail, key: "k"))
        let job = try #require(try await Self.claim(opened.storage, [Self.mail], now: 1).first)
        await #expect(throws: JobError.notInState(id: job.id, state: .running, action: "retried")) {
            try await opened.storage.writeTransaction { try JobQueue.retry($0, id: job.id, now: 2) }
        }
        await #expect(throws: JobError.notInState(id: job.id, state: .running, action: "discarded")) {
            try await opened.storage.writeTransaction { try JobQueue.discard($0, id: job.id, now: 2) }
        }
        try await opened.storage.writeTransaction {
            try JobQueue.bury($0, job, owner: "a", error: "permanent", now: 3, periodic: nil, nextRunAt: 3)
        }
        let retried = try await opened.storage.writeTransaction { try JobQueue.retry($0, id: job.id, now: 4) }
        #expect(retried.state == .queued && retried.attempts == 0 && retried.runAt == 4)
        let discarded = try await opened.storage.writeTransaction { try JobQueue.discard($0, id: job.id, now: 5) }
        #expect(discarded.state == .discarded && discarded.finishedAt == 5)
        #expect(try await Self.claim(opened.storage, [Self.mail], now: 6).isEmpty)
        await #expect(throws: EntityError.notFound(entity: "job", id: "999999")) {
            try await opened.storage.writeTransaction { try JobQueue.retry($0, id: 999_999, now: 7) }
        }
        let pruned = try await opened.storage.writeTransaction { try JobQueue.prune($0, finishedBefore: 6, limit: 10) }
        #expect(pruned == 1)
        await opened.storage.close()
    }
}

import AxiomTestSupport
import Dispatch
import Synchronization
import Testing
import TestSupport
@testable import Capabilities

/// PostgreSQL's transaction ids are taken at a transaction's first write,
/// so a transaction that started earlier can commit later than others: its
/// rows must neither be stepped over by a follower that read past the
/// others, nor, for a user whose row it locked behind a later transaction,
/// come before that transaction's change to the same user. (SQLite has one
/// writer at a time: the situation cannot arise there.)
@Suite(.serialized) struct ChangeFeedCommitOrderTests {
    @Test func aChangeCommittedLateByAnEarlierTransactionReachesEveryFollowerInItsUsersOrder() async throws {
        guard StorageBackend.databaseURL != nil else { return }
        let database = try await StorageBackend.postgres.database(at: "")
        let migrations = ChangeFeedTests.migrations
        let early = try await Replica.open(.postgres, database: database, migrations: migrations)
        let late = try await Replica.open(.postgres, database: database, migrations: migrations)
        var followers: [Replica] = []
        var recorders: [ChangeFeedTests.Recorder] = []
        for _ in 0..<2 {
            let follower = try await Replica.open(.postgres, database: database, migrations: migrations,
                                                  wake: .poll, pollInterval: .milliseconds(1))
            let recorder = ChangeFeedTests.Recorder()
            follower.feed.subscribe(recorder)
            try await follower.feed.start()
            followers.append(follower)
            recorders.append(recorder)
        }

        // The early transaction takes its id with its first write, then waits
        // (its writer's thread blocked) while the late one writes user u and
        // commits; only then does it record its own changes, to u and to v.
        let opened = Atomic(false)
        let release = DispatchSemaphoreGate()
        let earlyWrite = Task {
            try await early.storage.durableWrite { handle in
                try handle.execute("INSERT INTO notes(id) VALUES(?)", "early")
                opened.store(true, ordering: .sequentiallyConsistent)
                release.wait()
                try handle.recordChange(ChangeRecord(kind: .cart, key: "u-second", userID: "u"))
                try handle.recordChange(ChangeRecord(kind: .cart, key: "v-only", userID: "v"))
            }
        }
        try await eventually { opened.load(ordering: .sequentiallyConsistent) }
        try await late.storage.durableWrite { handle in
            try handle.execute("INSERT INTO notes(id) VALUES(?)", "late")
            try handle.recordChange(ChangeRecord(kind: .cart, key: "u-first", userID: "u"))
        }
        // Committed, but behind the open earlier transaction: held, not delivered.
        try await eventually { followers.allSatisfy { $0.feed.metrics.heldBack > 0 } }
        #expect(recorders.allSatisfy { $0.keys.isEmpty })

        release.open()
        try await earlyWrite.value
        for (follower, recorder) in zip(followers, recorders) {
            try await follower.feed.barrier()
            let seen = recorder.seen.withLock { $0 }
            #expect(Set(seen.map(\.key)) == ["u-first", "u-second", "v-only"])
            #expect(seen.filter { $0.userID == "u" }.map(\.key) == ["u-first", "u-second"])
            let position = Dictionary(uniqueKeysWithValues: seen.map { ($0.key, $0.sequence) })
            // The early transaction's own row sits below the late one's: it did start first.
            #expect(position["v-only"]! < position["u-first"]!)
            #expect(position["u-first"]! < position["u-second"]!)
            #expect(follower.feed.metrics.heldBack == 0)
        }
        for replica in [early, late] + followers { await replica.stop() }
    }
}

/// A gate a writer's (synchronous) closure can wait at until the test opens it.
final class DispatchSemaphoreGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func wait() { semaphore.wait() }
    func open() { semaphore.signal() }
}

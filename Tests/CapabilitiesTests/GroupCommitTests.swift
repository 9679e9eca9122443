import AxiomTestSupport
import Foundation
import Testing
@testable import Capabilities

@Suite struct GroupCommitTests {
    @Test func concurrentWritesAreAllAcknowledgedAndPresent() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        let writes = 200
        let acknowledged = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<writes {
                group.addTask { try await Fixture.insertUser(storage, id: "user-\(i)") }
            }
            return try await group.reduce(0, +)
        }
        #expect(acknowledged == writes)
        #expect(try await Fixture.userCount(storage) == Int64(writes))
        let metrics = storage.metrics
        #expect(metrics.writesAcknowledged == writes)
        #expect(metrics.writesFailed == 0)
        #expect(metrics.batchSizes.sum == Double(writes))
        #expect(metrics.commits == metrics.batchSizes.count)
        #expect(metrics.commitLatency.count == metrics.commits)
        await storage.close()

        // Acknowledged means on disk: a fresh instance sees every row.
        let reopened = try await Fixture.open(directory)
        #expect(try await Fixture.userCount(reopened) == Int64(writes))
        await reopened.close()
    }

    @Test func queuedWritesShareOneTransaction() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        let writes = 200
        let hold = storage.holdWriter()
        let acknowledged = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<writes {
                group.addTask { try await Fixture.insertUser(storage, id: "user-\(i)") }
            }
            await storage.releaseWriter(hold, afterQueued: writes)
            return try await group.reduce(0, +)
        }
        #expect(acknowledged == writes)
        let metrics = storage.metrics
        #expect(metrics.commits == 1)
        #expect(metrics.largestBatch == writes)
        #expect(try await Fixture.userCount(storage) == Int64(writes))
        await storage.close()
    }

    @Test func batchSizeIsBounded() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory) { $0.maxBatchSize = 16 }
        let hold = storage.holdWriter()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<100 {
                group.addTask { try await Fixture.insertUser(storage, id: "user-\(i)") }
            }
            await storage.releaseWriter(hold, afterQueued: 100)
            try await group.waitForAll()
        }
        let metrics = storage.metrics
        #expect(metrics.commits == 7) // 6 × 16 + 4
        #expect(metrics.largestBatch == 16)
        #expect(metrics.batchSizes.counts[metrics.batchSizes.upperBounds.firstIndex(of: 16)!] == 6)
        #expect(try await Fixture.userCount(storage) == 100)
        await storage.close()
    }

    @Test func aFailingRequestRollsBackOnlyItself() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        try await Fixture.insertUser(storage, id: "taken", email: "taken@example.com")
        let hold = storage.holdWriter()
        let outcomes = await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
            for i in 0..<10 {
                group.addTask {
                    let result = await capture {
                        try await storage.write { db -> Int in
                            try db.execute("INSERT INTO notes(user_id, body) VALUES('taken', ?)", "note \(i)")
                            switch i {
                            case 3: // constraint violation after a successful statement
                                return try db.execute("INSERT INTO users(id, email, name) VALUES('x', 'TAKEN@example.com', 'X')")
                            case 6: // the closure's own error
                                throw ExpectedFailure(tag: i)
                            default:
                                return try db.execute("INSERT INTO users(id, email, name) VALUES(?, ?, 'N')", "n\(i)", "n\(i)@x")
                            }
                        }
                    }
                    return (i, result)
                }
            }
            await storage.releaseWriter(hold, afterQueued: 10)
            return await group.reduce(into: [Int: Result<Int, any Error>]()) { $0[$1.0] = $1.1 }
        }
        for (i, outcome) in outcomes.sorted(by: { $0.key < $1.key }) {
            switch (i, outcome) {
            case (3, .failure(let error as StorageError)):
                #expect(error.sqliteError?.isUniqueViolation == true)
            case (6, .failure(let error)):
                #expect(error as? ExpectedFailure == ExpectedFailure(tag: 6))
            case (_, .success(let changed)) where i != 3 && i != 6:
                #expect(changed == 1)
            default:
                Issue.record("request \(i): unexpected outcome \(outcome)")
            }
        }
        let metrics = storage.metrics
        #expect(metrics.commits == 2) // the setup insert, then the whole batch
        #expect(metrics.largestBatch == 10)
        #expect(metrics.writesFailed == 2)
        let notes = try await storage.read { db in
            try db.query("SELECT body FROM notes ORDER BY id").map { try $0.get(0, as: String.self) }
        }
        // Which notes were committed, not in which order: the ten tasks
        // race to join the batch, so their rows come in arrival order.
        #expect(notes.sorted() == [0, 1, 2, 4, 5, 7, 8, 9].map { "note \($0)" })
        #expect(try await Fixture.userCount(storage) == 9)
        await storage.close()
    }

    @Test func aRequestThatAbortsTheWholeTransactionDoesNotTakeOthersDown() async throws {
        // RAISE(ROLLBACK) in a trigger rolls back the entire transaction, not
        // just the savepoint: the writer must fail only the culprit and run the
        // innocent requests again in a new transaction.
        let directory = try TempDirectory()
        let migrations = [Migration(version: 1, name: "poisonable", sql: """
            CREATE TABLE items (name TEXT PRIMARY KEY) STRICT;
            CREATE TRIGGER poison BEFORE INSERT ON items WHEN NEW.name = 'poison'
            BEGIN SELECT RAISE(ROLLBACK, 'poisoned'); END;
            """)]
        let storage = try await SQLiteStorage.open(Fixture.configuration(directory), migrations: migrations)
        let hold = storage.holdWriter()
        let outcomes = await withTaskGroup(of: (String, Result<Int, any Error>).self) { group in
            for name in ["a", "b", "c", "poison", "d", "e"] {
                group.addTask {
                    (name, await capture { try await storage.write { db in try db.execute("INSERT INTO items VALUES(?)", name) } })
                }
            }
            await storage.releaseWriter(hold, afterQueued: 6)
            return await group.reduce(into: [String: Result<Int, any Error>]()) { $0[$1.0] = $1.1 }
        }
        for (name, outcome) in outcomes {
            switch outcome {
            case .success(let changed):
                #expect(name != "poison" && changed == 1)
            case .failure(let error as StorageError):
                #expect(name == "poison")
                #expect(error.sqliteError?.isConstraintViolation == true)
                #expect(error.sqliteError?.message == "poisoned")
            case .failure(let error):
                Issue.record("\(name): unexpected \(error)")
            }
        }
        let names = try await storage.read { db in
            try db.query("SELECT name FROM items ORDER BY name").map { try $0.get(0, as: String.self) }
        }
        #expect(names == ["a", "b", "c", "d", "e"])
        let metrics = storage.metrics
        #expect(metrics.writesAcknowledged == 5 && metrics.writesFailed == 1)
        #expect(metrics.commits == 1) // a, b, c were requeued and committed with d, e
        #expect(metrics.largestBatch == 5)
        await storage.close()
    }

    @Test func readersNeverSeeHalfOfAWrite() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        try await Fixture.insertUser(storage, id: "owner")
        let observed = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for i in 0..<100 {
                group.addTask {
                    // Each write adds a pair of notes, in two statements.
                    try await storage.write { db in
                        try db.execute("INSERT INTO notes(user_id, body) VALUES('owner', ?)", "a\(i)")
                        try db.execute("INSERT INTO notes(user_id, body) VALUES('owner', ?)", "b\(i)")
                    }
                    return []
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    var counts: [Int64] = []
                    for _ in 0..<50 {
                        counts.append(try await storage.read { db in
                            try db.queryOne("SELECT count(*) FROM notes")?.get(0) ?? -1
                        })
                    }
                    return counts
                }
            }
            return try await group.reduce(into: [Int64]()) { $0 += $1 }
        }
        #expect(observed.count == 200)
        #expect(observed.allSatisfy { $0 >= 0 && $0 % 2 == 0 && $0 <= 200 })
        let total = try await storage.read { db in try db.queryOne("SELECT count(*) FROM notes")?.get(0, as: Int64.self) }
        #expect(total == 200)
        await storage.close()
    }

    @Test func acknowledgedWritesSurviveReopenWithoutClose() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<50 { group.addTask { try await Fixture.insertUser(storage, id: "d\(i)") } }
            try await group.waitForAll()
        }
        // A second, independent instance (own connections) while the first is
        // still open: what was acknowledged is in the database file and WAL.
        let other = try await Fixture.open(directory)
        #expect(try await Fixture.userCount(other) == 50)
        await other.close()
        await storage.close()
        let reopened = try await Fixture.open(directory)
        #expect(try await Fixture.userCount(reopened) == 50)
        let mode = try await reopened.read { db in try db.queryOne("PRAGMA journal_mode")?.get(0, as: String.self) }
        #expect(mode == "wal")
        await reopened.close()
    }

    @Test func writerConnectionIsDurableAndEnforcesForeignKeys() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        let pragmas = try await storage.write { db in
            try ["synchronous", "foreign_keys", "journal_mode", "busy_timeout"].map { name in
                try db.queryOne("PRAGMA \(name)")?[0] ?? .null
            }
        }
        #expect(pragmas == [.integer(2), .integer(1), .text("wal"), .integer(5000)]) // 2 = FULL
        await storage.close()
    }
}

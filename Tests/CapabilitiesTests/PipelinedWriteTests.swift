import AxiomTestSupport
import Foundation
import Synchronization
import Testing
@testable import Capabilities

/// Ten concurrent writes (they share batches); `write(i)` runs in the
/// i-th. Returns each one's error.
private func concurrently(_ storage: any StorageCapability,
                          _ write: @escaping @Sendable (Int, any StorageHandle) throws -> Void) async -> [Int: any Error] {
    await withTaskGroup(of: (Int, (any Error)?).self) { group in
        for i in 0..<10 {
            group.addTask {
                do {
                    try await storage.writeTransaction { try write(i, $0) }
                    return (i, nil)
                } catch {
                    return (i, error)
                }
            }
        }
        return await group.reduce(into: [Int: any Error]()) { failures, outcome in
            if let error = outcome.1 { failures[outcome.0] = error }
        }
    }
}

/// `enqueue`: a statement whose result the closure does not read. On
/// PostgreSQL it waits and goes in one pipeline with the next statement
/// that is read, or with the end of its request or batch; its error must
/// still fail its own request, and only that one.
struct PipelinedWriteTests {
    static let migrations = StorageHandleTests.migrations

    private func ids(_ storage: any StorageCapability) async throws -> [String] {
        try await storage.readTransaction { try $0.query("SELECT id FROM items ORDER BY id").map { try $0.get(0, as: String.self) } }
    }

    @Test(arguments: StorageBackend.all)
    func deferredStatementsBeforeAFailingOneGoWithItsRequestAlone(backend: StorageBackend) async throws {
        let opened = try await backend.open(migrations: Self.migrations)
        let storage = opened.storage
        _ = try await storage.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('taken', 0)") }
        let failures = await concurrently(storage) { i, handle in
            try handle.enqueue("INSERT INTO items(id, count) VALUES(?, ?)", "a\(i)", i)
            try handle.enqueue("UPDATE items SET count = count + 1 WHERE id = 'taken'")
            if i == 4 { try handle.execute("INSERT INTO items(id, count) VALUES('taken', 9)") }
            try handle.enqueue("INSERT INTO items(id, count) VALUES(?, ?)", "b\(i)", i)
        }
        #expect(Array(failures.keys) == [4])
        #expect((failures[4] as? StorageError)?.isUniqueViolation == true)
        let expected = (0..<10).filter { $0 != 4 }.flatMap { ["a\($0)", "b\($0)"] } + ["taken"]
        #expect(try await ids(storage) == expected.sorted())
        let taken = try await storage.readTransaction { try $0.queryOne("SELECT count FROM items WHERE id = 'taken'") }
        #expect(try taken?.get("count", as: Int64.self) == 9)
        await storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func aDeferredStatementsErrorFailsItsOwnRequestNotAnother(backend: StorageBackend) async throws {
        let opened = try await backend.open(migrations: Self.migrations)
        let storage = opened.storage
        _ = try await storage.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('taken', 0)") }
        let failures = await concurrently(storage) { i, handle in
            try handle.enqueue("INSERT INTO items(id, count) VALUES(?, ?)", "a\(i)", i)
            // Request 6's own error comes back only once its closure returned,
            // or at its next statement that is read (request 7's).
            if i == 6 || i == 7 { try handle.enqueue("INSERT INTO items(id, count) VALUES('taken', ?)", i) }
            if i == 7 { _ = try handle.query("SELECT COUNT(*) AS n FROM items") }
        }
        #expect(Set(failures.keys) == [6, 7])
        #expect(failures.values.allSatisfy { ($0 as? StorageError)?.isUniqueViolation == true })
        let expected = (0..<10).filter { $0 != 6 && $0 != 7 }.map { "a\($0)" } + ["taken"]
        #expect(try await ids(storage) == expected.sorted())
        await storage.close()
    }
}

/// What only the pipeline does: round trips, batches without savepoints,
/// retries of a deferred statement's serialization failure.
@Suite(.enabled(if: StorageBackend.databaseURL != nil,
                "AXIOM_TEST_DATABASE_URL is unset: PostgreSQL tests skipped (export AXIOM_TEST_DATABASE_URL=$(scripts/postgres.sh start))"))
struct PostgresPipelineTests {
    @Test func aWriteCostsOneRoundTripPerStatementItReadsPlusOne() async throws {
        let storage = try await PostgresStorageTests.open()
        let before = storage.metrics.writerRoundTrips
        let count = try await storage.writeTransaction { handle in
            for i in 0..<5 { try handle.enqueue("INSERT INTO items(id, count) VALUES(?, ?)", "i\(i)", i) }
            let count: Int64 = try handle.queryOne("SELECT COUNT(*) AS n FROM items")?.get("n") ?? -1
            try handle.enqueue("UPDATE items SET note = 'seen' WHERE count < ?", count)
            return count
        }
        #expect(count == 5)
        // BEGIN with the five inserts and the count; the update with the release and COMMIT.
        #expect(storage.metrics.writerRoundTrips - before == 2)
        let seen = try await storage.readTransaction { try $0.queryOne("SELECT COUNT(*) AS n FROM items WHERE note = 'seen'") }
        #expect(try seen?.get("n", as: Int64.self) == 5)
        await storage.close()
    }

    @Test func aDeferredSerializationFailureRunsTheBatchAgain() async throws {
        let storage = try await PostgresStorageTests.open()
        let runs = Atomic(0)
        try await storage.writeTransaction { handle in
            try handle.enqueue("INSERT INTO items(id, count) VALUES('retried', 1)")
            if runs.add(1, ordering: .relaxed).newValue == 1 {
                try handle.enqueue(PostgresStorageTests.serializationFailure)
            }
        }
        #expect(runs.load(ordering: .relaxed) == 2)
        let count = try await storage.readTransaction { try $0.queryOne("SELECT COUNT(*) AS n FROM items") }
        #expect(try count?.get("n", as: Int64.self) == 1)
        await storage.close()
    }

    /// Ten writes queued behind one that holds the writer, so they form
    /// one batch; `write(i)` runs in the i-th. Returns each one's error.
    private func queuedBehindOne(_ storage: PostgresStorage,
                                 _ write: @escaping @Sendable (Int, any StorageHandle) throws -> Void) async throws -> [Int: any Error] {
        let holding = Atomic(false)
        async let held: Void = storage.writeTransaction { handle in
            holding.store(true, ordering: .relaxed)
            _ = try handle.query("SELECT pg_sleep(0.5)")
        }
        while !holding.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
        let failures = await concurrently(storage, write)
        try await held
        return failures
    }

    @Test func requestsOfOneBatchShareItsRoundTrips() async throws {
        let storage = try await PostgresStorageTests.open()
        let before = storage.metrics
        let failures = try await queuedBehindOne(storage) { i, handle in
            try handle.enqueue("INSERT INTO items(id, count) VALUES(?, ?)", "s\(i)", i)
        }
        #expect(failures.isEmpty)
        let after = storage.metrics
        // Without a savepoint each: a batch's statements go in one pipeline,
        // its COMMIT in another (the holder's: its read, then COMMIT).
        #expect(after.commits - before.commits < 11, "the ten did not share a batch")
        #expect(after.writerRoundTrips - before.writerRoundTrips == 2 * (after.commits - before.commits))
        #expect(after.batchesRerunWithSavepoints == before.batchesRerunWithSavepoints)
        let count = try await storage.readTransaction { try $0.queryOne("SELECT COUNT(*) AS n FROM items") }
        #expect(try count?.get("n", as: Int64.self) == 10)
        await storage.close()
    }

    @Test func aFailingRequestRollsItsBatchBackToRunAgainWithSavepoints() async throws {
        let storage = try await PostgresStorageTests.open()
        _ = try await storage.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('taken', 0)") }
        let before = storage.metrics
        let failures = try await queuedBehindOne(storage) { i, handle in
            try handle.enqueue("INSERT INTO items(id, count) VALUES(?, ?)", "f\(i)", i)
            try handle.enqueue("UPDATE items SET count = count + 1 WHERE id = 'taken'")
            if i == 3 { try handle.enqueue("INSERT INTO items(id, count) VALUES('taken', 9)") }
            if i == 5 { throw StorageError.closed }
        }
        #expect(Set(failures.keys) == [3, 5])
        #expect((failures[3] as? StorageError)?.isUniqueViolation == true)
        #expect(storage.metrics.batchesRerunWithSavepoints - before.batchesRerunWithSavepoints >= 1)
        let ids = try await storage.readTransaction {
            try $0.query("SELECT id FROM items ORDER BY id").map { try $0.get(0, as: String.self) }
        }
        #expect(ids == ((0..<10).filter { $0 != 3 && $0 != 5 }.map { "f\($0)" } + ["taken"]).sorted())
        let taken = try await storage.readTransaction { try $0.queryOne("SELECT count FROM items WHERE id = 'taken'") }
        #expect(try taken?.get("count", as: Int64.self) == 8, "each request that committed counted once")
        await storage.close()
    }

    @Test func aReadRunsAnEnqueuedStatementAtOnce() async throws {
        let storage = try await PostgresStorageTests.open()
        await #expect(throws: StorageError.self) {
            try await storage.readTransaction { handle in
                try handle.enqueue("INSERT INTO items(id, count) VALUES('read-only', 1)")
            }
        }
        await storage.close()
    }
}

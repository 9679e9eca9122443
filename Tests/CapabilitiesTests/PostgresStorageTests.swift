import AxiomTestSupport
import Foundation
import Synchronization
import Testing
@testable import Capabilities

/// What only PostgreSQL does: retries of serialization failures and
/// deadlocks, connection loss and recovery, migrations in its dialect,
/// group commit over the network. Against the server of
/// `AXIOM_TEST_DATABASE_URL` (scripts/postgres.sh start).
@Suite(.enabled(if: StorageBackend.databaseURL != nil,
                "AXIOM_TEST_DATABASE_URL is unset: PostgreSQL tests skipped (export AXIOM_TEST_DATABASE_URL=$(scripts/postgres.sh start))"))
struct PostgresStorageTests {
    static let migrations = StorageHandleTests.migrations

    static func open(_ migrations: [Migration] = migrations, maxRetries: Int = 5) async throws -> PostgresStorage {
        let url = try await StorageBackend.freshSchemaURL()
        return try await PostgresStorage.open(PostgresConfiguration(url: url, maxRetries: maxRetries), migrations: migrations)
    }

    /// A statement that fails the way a serializable conflict does.
    static let serializationFailure =
        "DO $$ BEGIN RAISE EXCEPTION 'simulated conflict' USING ERRCODE = 'serialization_failure'; END $$"

    @Test func serializationFailureRunsTheBatchAgain() async throws {
        let storage = try await Self.open()
        let runs = Atomic(0)
        try await storage.writeTransaction { handle in
            try handle.execute("INSERT INTO items(id, count) VALUES('retried', 1)")
            if runs.add(1, ordering: .relaxed).newValue == 1 {
                // Swallowed on purpose: the writer must still roll back and retry.
                try? handle.executeScript(Self.serializationFailure)
            }
        }
        #expect(runs.load(ordering: .relaxed) == 2)
        let count = try await storage.readTransaction { try $0.queryOne("SELECT COUNT(*) AS n FROM items") }
        #expect(try count?.get("n", as: Int64.self) == 1)
        await storage.close()
    }

    @Test func aSwallowedStatementErrorStillFailsItsRequestAlone() async throws {
        let storage = try await Self.open()
        try await storage.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('taken', 1)") }
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<10 {
                group.addTask {
                    do {
                        try await storage.writeTransaction { handle in
                            // PostgreSQL aborts the savepoint here; SQLite would carry on.
                            if i == 3 { _ = try? handle.execute("INSERT INTO items(id, count) VALUES('taken', 2)") }
                            _ = try? handle.execute("INSERT INTO items(id, count) VALUES(?, ?)", "i\(i)", i)
                        }
                        return true
                    } catch {
                        return (error as? StorageError)?.isUniqueViolation == true ? false : true
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { !$0 }.count == 1)
        let ids = try await storage.readTransaction { try $0.query("SELECT id FROM items ORDER BY id").map { try $0.get(0, as: String.self) } }
        #expect(ids == ["i0", "i1", "i2", "i4", "i5", "i6", "i7", "i8", "i9", "taken"])
        await storage.close()
    }

    @Test func retriesAreBounded() async throws {
        let storage = try await Self.open(maxRetries: 3)
        let runs = Atomic(0)
        await #expect {
            try await storage.writeTransaction { handle in
                runs.add(1, ordering: .relaxed)
                try handle.executeScript(Self.serializationFailure)
            }
        } throws: { error in
            (error as? StorageError)?.postgresError?.sqlState == "40001"
        }
        #expect(runs.load(ordering: .relaxed) == 4)
        #expect(storage.isAvailable)
        await storage.close()
    }

    @Test func lostConnectionMakesStorageUnavailableUntilAProbeReconnects() async throws {
        let storage = try await Self.open()
        // The connection dies in the middle of the batch, after its first round trip.
        await #expect {
            try await storage.writeTransaction { handle in
                try handle.execute("INSERT INTO items(id, count) VALUES('lost', 1)")
                _ = try handle.query("SELECT pg_terminate_backend(pg_backend_pid())", arguments: [])
            }
        } throws: { ($0 as? StorageError)?.isUnavailable == true }
        #expect(!storage.isAvailable)
        // Refused at once while unavailable, without a round trip.
        await #expect {
            try await storage.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('refused', 1)") }
        } throws: { ($0 as? StorageError)?.isUnavailable == true }
        #expect(await storage.checkAvailability())
        #expect(storage.isAvailable)
        try await storage.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('back', 1)") }
        let ids = try await storage.readTransaction { try $0.query("SELECT id FROM items ORDER BY id").map { try $0.get(0, as: String.self) } }
        #expect(ids == ["back"])
        await storage.close()
    }

    /// A restart of PostgreSQL, or an outage another writer saw, leaves a
    /// writer holding a connection the server has closed; libpq learns it
    /// only on use. Nothing of the batch has run then: it runs on a fresh one.
    @Test func anIdleWriterConnectionTheServerClosedIsReplacedWithoutFailingAWrite() async throws {
        var configuration = PostgresConfiguration(url: try await StorageBackend.freshSchemaURL())
        configuration.writerCount = 2
        let storage = try await PostgresStorage.open(configuration, migrations: Self.migrations)
        // Both writers busy at once, so both have connected.
        let pids = try await withThrowingTaskGroup(of: Int64.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await storage.writeTransaction { handle in
                        try handle.execute("INSERT INTO items(id, count) VALUES(?, 1)", arguments: [.text("first-\(index)")])
                        _ = try handle.query("SELECT pg_sleep(0.05)", arguments: [])
                        return try handle.queryOne("SELECT pg_backend_pid() AS pid")!.get("pid", as: Int64.self)
                    }
                }
            }
            return try await group.reduce(into: Set<Int64>()) { $0.insert($1) }
        }
        #expect(pids.count == 2, "both writers took batches")
        for pid in pids {
            let terminated = try await storage.readTransaction { handle in
                try handle.queryOne("SELECT pg_terminate_backend(?) AS done", pid)!.get("done", as: Int64.self)
            }
            #expect(terminated == 1)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await storage.writeTransaction { handle in
                        try handle.execute("INSERT INTO items(id, count) VALUES(?, 1)", arguments: [.text("after-\(index)")])
                        _ = try handle.query("SELECT pg_sleep(0.05)", arguments: [])
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(storage.isAvailable)
        let count = try await storage.readTransaction {
            try $0.queryOne("SELECT count(*) AS n FROM items WHERE id LIKE 'after-%'")?.get("n", as: Int64.self)
        }
        #expect(count == 8)
        await storage.close()
    }

    @Test func writerCountZeroIsChosenFromTheRoundTrip() async throws {
        #expect(PostgresWriterCount.forRoundTrip(.microseconds(60)) == 1)
        #expect(PostgresWriterCount.forRoundTrip(.microseconds(499)) == 1)
        #expect(PostgresWriterCount.forRoundTrip(.microseconds(500)) == 3)
        #expect(PostgresWriterCount.forRoundTrip(.milliseconds(2)) == 3)
        var configuration = PostgresConfiguration(url: try await StorageBackend.freshSchemaURL())
        configuration.writerCount = 0
        let storage = try await PostgresStorage.open(configuration, migrations: Self.migrations)
        // Loopback answers in microseconds, but this machine may stall a probe: either count, never 0.
        #expect([1, PostgresWriterCount.distant].contains(storage.writerCount))
        #expect(storage.configuration.writerCount == storage.writerCount, "the chosen count is kept for reopen")
        await storage.close()
    }

    @Test func unreachableServerIsUnavailable() async throws {
        // Port 1 on loopback: nothing listens, the connect is refused at once.
        await #expect {
            _ = try await PostgresStorage.open(PostgresConfiguration(url: "postgres://axiom@127.0.0.1:1/axiom?connect_timeout=2"))
        } throws: { ($0 as? StorageError)?.isUnavailable == true }
    }

    @Test func migrationsApplyOnceAndRecordTheirVersion() async throws {
        let url = try await StorageBackend.freshSchemaURL()
        let first = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: Self.migrations)
        await first.close()
        let second = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: Self.migrations)
        let recorded = try await second.readTransaction { handle in
            try handle.query("SELECT version, name FROM schema_migrations").map { try $0.get("name", as: String.self) }
        }
        #expect(recorded == ["items"])
        await second.close()
    }

    @Test func migrationWithoutPostgresDialectIsRefused() async throws {
        let sqliteOnly = [Migration(version: 1, name: "t", sql: "CREATE TABLE t (id INTEGER) STRICT;")]
        await #expect {
            _ = try await Self.open(sqliteOnly)
        } throws: { error in
            if case .invalidMigrations = error as? StorageError { return true }
            return false
        }
    }

    @Test func failedMigrationLeavesNoTrace() async throws {
        let url = try await StorageBackend.freshSchemaURL()
        let broken = Self.migrations + [Migration(version: 2, name: "broken", sql: "",
                                                  postgresSQL: "CREATE TABLE half (id TEXT); SELECT no_such_column FROM half;")]
        await #expect {
            _ = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: broken)
        } throws: { error in
            if case .postgresMigrationFailed(let version, _, let underlying) = error as? StorageError {
                return version == 2 && underlying.sqlState == "42703"
            }
            return false
        }
        let storage = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: Self.migrations)
        let tables = try await storage.readTransaction { handle in
            try handle.query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1")
                .map { try $0.get(0, as: String.self) }
        }
        #expect(tables == ["change_users", "changes", "changes_pruned", "items", "jobs", "rate_buckets", "schema_migrations",
                          "storage_probe"])
        await storage.close()
    }

    @Test func concurrentWritesAreAllAcknowledgedAndDurable() async throws {
        let url = try await StorageBackend.freshSchemaURL()
        let storage = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: Self.migrations)
        let writes = 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<writes {
                group.addTask {
                    _ = try await storage.writeTransaction { handle -> Int in
                        try handle.execute("INSERT INTO items(id, count) VALUES(?, ?)", "w\(i)", i)
                    }
                }
            }
            try await group.waitForAll()
        }
        let metrics = storage.metrics
        #expect(metrics.writesAcknowledged == writes)
        #expect(metrics.batchSizes.sum == Double(writes))
        #expect(metrics.commits == metrics.batchSizes.count)
        await storage.close()
        // Acknowledged means committed: fresh connections see every row.
        let reopened = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: Self.migrations)
        let count = try await reopened.readTransaction { try $0.queryOne("SELECT COUNT(*) AS n FROM items") }
        #expect(try count?.get("n", as: Int64.self) == Int64(writes))
        await reopened.close()
    }
}

// Durable writes per second through the storage capability, with 1 and
// with many concurrent writers, on SQLite and (when AXIOM_TEST_DATABASE_URL
// or the first argument names a server) PostgreSQL. Run by hand:
//   swift run StorageBenchmarks [postgres://…]
// Each write is one INSERT acknowledged after its COMMIT; the mean batch
// size shows how much group commit shares one commit among writers.
import Capabilities
import Foundation

let migrations = [
    Migration(version: 1, name: "bench", sql: "CREATE TABLE bench (id TEXT PRIMARY KEY, n INTEGER NOT NULL) STRICT;",
              postgresSQL: "CREATE TABLE bench (id TEXT PRIMARY KEY, n BIGINT NOT NULL);"),
]

func measure(_ name: String, writers: Int, writesPerWriter: Int,
             open: () async throws -> (any StorageCapability, () -> StorageMetrics)) async throws {
    let (storage, metrics) = try await open()
    let clock = ContinuousClock()
    let started = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for writer in 0..<writers {
            group.addTask {
                for i in 0..<writesPerWriter {
                    _ = try await storage.writeTransaction { handle -> Int in
                        try handle.execute("INSERT INTO bench(id, n) VALUES(?, ?)", "\(writer)-\(i)", i)
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = clock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let total = writers * writesPerWriter
    let m = metrics()
    let meanBatch = m.batchSizes.count > 0 ? m.batchSizes.sum / Double(m.batchSizes.count) : 0
    print(String(format: "%-10@ writers %3d  writes %6d  %8.0f writes/s  commits %6d  mean batch %6.1f",
                 name as NSString, writers, total, Double(total) / seconds, m.commits, meanBatch))
    await storage.close()
}

let url = CommandLine.arguments.dropFirst().first ?? ProcessInfo.processInfo.environment["AXIOM_TEST_DATABASE_URL"]
let plan = [(1, 2_000), (8, 500), (64, 100)]
for (writers, each) in plan {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try await measure("sqlite", writers: writers, writesPerWriter: each) {
        let storage = try await SQLiteStorage.open(
            StorageConfiguration(path: directory.appendingPathComponent("bench.db").path, createDirectory: true),
            migrations: migrations)
        return (storage, { storage.metrics })
    }
}
if let url {
    for (writers, each) in plan {
        try await measure("postgres", writers: writers, writesPerWriter: each) {
            let admin = try await PostgresStorage.open(PostgresConfiguration(url: url, readerCount: 1))
            try await admin.writeTransaction { try $0.executeScript("DROP TABLE IF EXISTS bench; DELETE FROM schema_migrations WHERE version = 1") }
            await admin.close()
            let storage = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: migrations)
            return (storage, { storage.metrics })
        }
    }
} else {
    print("postgres: skipped (no URL; scripts/postgres.sh start prints one)")
}

// Trivial jobs enqueued and completed per second through the job queue
// (JobQueue, the store the runner uses), with 1 and with 3 workers, on
// SQLite and (when AXIOM_TEST_DATABASE_URL or the first argument names a
// server) PostgreSQL. Run by hand:
//   swift run -c release JobBenchmarks [postgres://…]
// Each worker is a storage instance of its own, as a process is: it claims
// up to `batch` due jobs in one write, runs each (nothing), and records
// each success in a write of its own, concurrently, as the runner does with
// jobs_concurrency = batch. Producers enqueue each job in a write of its
// own at the same time, as requests would. The figure is jobs / the time
// from the first enqueue to the last success.
import Capabilities
import Domain
import Foundation
import Synchronization

let kind = JobKind("bench.noop")
let total = 20_000
let producers = 16
let batch = 16

final class Progress: Sendable {
    let enqueued = Atomic(0)
    let done = Atomic(0)
}

func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

func measure(_ name: String, workers: Int, open: () async throws -> any StorageCapability) async throws {
    var storages: [any StorageCapability] = []
    for _ in 0..<max(workers, 1) { storages.append(try await open()) }
    let progress = Progress()
    let clock = ContinuousClock()
    let started = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for producer in 0..<producers {
            let storage = storages[producer % storages.count]
            group.addTask {
                for _ in stride(from: producer, to: total, by: producers) {
                    _ = try await storage.writeTransaction {
                        try $0.enqueue(JobRequest(kind: kind, payload: Array("{}".utf8), runAt: 0))
                    }
                    progress.enqueued.add(1, ordering: .relaxed)
                }
            }
        }
        for worker in 0..<workers {
            let storage = storages[worker]
            let owner = "worker-\(worker)"
            group.addTask {
                while progress.done.load(ordering: .relaxed) < total {
                    let at = now()
                    let jobs = try await storage.writeTransaction {
                        try JobQueue.claim($0, kinds: [kind.name], owner: owner, now: at, leaseUntil: at + 60_000,
                                           limit: batch)
                    }
                    if jobs.isEmpty {
                        try await Task.sleep(for: .milliseconds(1))
                        continue
                    }
                    try await withThrowingTaskGroup(of: Void.self) { records in
                        for job in jobs {
                            records.addTask {
                                try await storage.writeTransaction {
                                    try JobQueue.succeed($0, job, owner: owner, now: now(), nextRunAt: nil)
                                }
                            }
                        }
                        try await records.waitForAll()
                    }
                    progress.done.add(jobs.count, ordering: .relaxed)
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = clock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let succeeded = try await storages[0].readTransaction {
        try $0.queryOne("SELECT COUNT(*) FROM jobs WHERE state = 'succeeded'")?.get(0, as: Int64.self) ?? 0
    }
    print(String(format: "%-10@ workers %d  jobs %6d  succeeded %6d  %7.0f jobs/s (enqueued and completed)",
                 name as NSString, workers, total, succeeded, Double(total) / seconds))
    for storage in storages { await storage.close() }
}

let url = CommandLine.arguments.dropFirst().first ?? ProcessInfo.processInfo.environment["AXIOM_TEST_DATABASE_URL"]
for workers in [1, 3] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-jobs-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("jobs.db").path
    try await measure("sqlite", workers: workers) {
        try await SQLiteStorage.open(StorageConfiguration(path: path, createDirectory: true), migrations: [])
    }
}
if let url {
    for workers in [1, 3] {
        let admin = try await PostgresStorage.open(PostgresConfiguration(url: url, readerCount: 1))
        try await admin.writeTransaction { try $0.executeScript("DELETE FROM jobs WHERE kind = 'bench.noop'") }
        await admin.close()
        try await measure("postgres", workers: workers) {
            try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: [])
        }
    }
} else {
    print("postgres: skipped (no URL; scripts/postgres.sh start prints one)")
}

// Trivial jobs enqueued and completed per second through the job queue
// (JobQueue, the store the runner uses), with 1 and with 3 workers, on
// SQLite and (when AXIOM_TEST_DATABASE_URL or the first argument names a
// server) PostgreSQL. Run by hand:
//   swift run -c release JobBenchmarks [postgres://…]
// Each worker is a storage instance of its own, as a process is, and runs
// as the runner does with jobs_concurrency = `concurrency`: it claims as
// many due jobs as it has free slots in one write, runs each (nothing) and
// records each success in a write of its own as it ends, claiming again
// while those are in flight. Producers enqueue each job in a write of its
// own at the same time, as requests would. The figure is jobs / the time
// from the first enqueue to the last success.
import Capabilities
import Domain
import Foundation
import Synchronization

let kind = JobKind("bench.noop")
let total = 20_000
let producers = 64
let concurrency = 64

final class Progress: Sendable {
    let enqueued = Atomic(0)
    let done = Atomic(0)
}

/// One worker's jobs in flight (claimed, success not yet recorded).
final class Slots: Sendable {
    let inFlight = Atomic(0)
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
                let slots = Slots()
                try await withThrowingTaskGroup(of: Void.self) { records in
                    while progress.done.load(ordering: .relaxed) < total {
                        let free = concurrency - slots.inFlight.load(ordering: .relaxed)
                        let at = now()
                        let jobs = free < concurrency / 4 ? [] : try await storage.writeTransaction {
                            try JobQueue.claim($0, kinds: [kind.name], owner: owner, now: at, leaseUntil: at + 60_000,
                                               limit: free)
                        }
                        if jobs.isEmpty {
                            try await Task.sleep(for: .milliseconds(1))
                            continue
                        }
                        slots.inFlight.add(jobs.count, ordering: .relaxed)
                        for job in jobs {
                            records.addTask {
                                try await storage.writeTransaction {
                                    try JobQueue.succeed($0, job, owner: owner, now: now(), nextRunAt: nil)
                                }
                                slots.inFlight.subtract(1, ordering: .relaxed)
                                progress.done.add(1, ordering: .relaxed)
                            }
                        }
                    }
                    try await records.waitForAll()
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
        // A schema of its own per measurement (libpq's `options` set
        // `search_path`), so each starts on an empty queue.
        let schema = "jobs_bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try await PostgresStorage.open(PostgresConfiguration(url: url, readerCount: 1))
        try await admin.writeTransaction { try $0.executeScript("CREATE SCHEMA \(schema)") }
        let scoped = url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        try await measure("postgres", workers: workers) {
            try await PostgresStorage.open(PostgresConfiguration(url: scoped), migrations: [])
        }
        try await admin.writeTransaction { try $0.executeScript("DROP SCHEMA \(schema) CASCADE") }
        await admin.close()
    }
} else {
    print("postgres: skipped (no URL; scripts/postgres.sh start prints one)")
}

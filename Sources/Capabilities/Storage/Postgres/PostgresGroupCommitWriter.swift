import Dispatch

/// The write connection, on its own serial Dispatch queue, with group
/// commit: each batch that `requests` (a `GroupCommitQueue`) hands out
/// becomes one transaction (`BEGIN … COMMIT`), each request inside a
/// SAVEPOINT of its own, so one PostgreSQL commit
/// (one WAL flush, one round trip) acknowledges them all. As with
/// `GroupCommitWriter`, batching is not timed: requests that arrive while a
/// COMMIT is in flight form the next batch.
///
/// A serialization failure (40001) or deadlock (40P01) rolls the batch back
/// and runs it again, up to `maxRetries` times. A lost connection fails the
/// batch with `.unavailable` and marks storage unavailable; the next batch
/// (a probe while unavailable) connects again. A COMMIT whose answer was
/// lost with the connection is reported as failed: its outcome is unknown
/// and nothing was acknowledged.
final class PostgresGroupCommitWriter: @unchecked Sendable {
    // @unchecked: `connection` is confined to the writer queue; the rest is
    // immutable (and Sendable).

    struct Request: GroupCommitRequest {
        let isProbe: Bool
        /// Runs the caller's closure; returns the delivery, called after
        /// COMMIT with the newest outbox sequence the request recorded.
        let perform: @Sendable (PostgresHandle) throws -> @Sendable (Int64?) -> Void
        let fail: @Sendable (any Error) -> Void
    }

    /// How one attempt at a batch ended.
    private enum Attempt {
        case committed(acknowledged: [Delivery], failed: [(Request, any Error)])
        case retry(PostgresError)
        case failed(StorageError)
    }

    /// An acknowledged request's delivery and the outbox sequence it gets.
    private struct Delivery {
        let deliver: @Sendable (Int64?) -> Void
        let recordCount: Int
        var sequence: Int64?
    }

    /// The requests waiting for the connection, and the queue it lives on.
    private let requests: GroupCommitQueue<Request>
    private var connection: PostgresConnection?
    private let health: StorageHealth
    private let configuration: PostgresConfiguration

    init(configuration: PostgresConfiguration, health: StorageHealth) {
        self.configuration = configuration
        self.health = health
        self.requests = GroupCommitQueue(label: "axiom.storage.postgres.writer",
                                         maxBatchSize: configuration.maxBatchSize, health: health)
    }

    /// Connects and applies migrations, on the writer queue.
    func open(migrations: [Migration]) async throws {
        try await requests.onWriterQueue {
            let connection = try self.connected()
            try PostgresMigrationRunner.apply(migrations, on: connection)
            let roundTrips = connection.takeRoundTrips()
            self.health.updateMetrics { $0.writerRoundTrips += roundTrips }
        }
    }

    /// Queues `request`; its batch runs in `run` on the writer queue.
    func submit(_ request: Request) {
        requests.submit(request, running: { self.run($0) })
    }

    /// Refuses new requests, finishes the queued ones, drops the connection.
    func close() async {
        await requests.close(running: { self.run($0) }, then: { self.connection = nil })
    }

    // MARK: - Writer queue only

    private func connected() throws -> PostgresConnection {
        if let connection, connection.isHealthy { return connection }
        connection = nil
        let fresh = try PostgresConnection(url: configuration.url,
                                           statementCacheCapacity: configuration.statementCacheCapacity)
        connection = fresh
        return fresh
    }

    /// One batch: one transaction, retried on serialization failure or deadlock.
    private func run(_ batch: [Request]) {
        let batch = requests.admitted(batch)
        if batch.isEmpty { return }
        let clock = ContinuousClock()
        let started = clock.now
        var retries = 0
        while true {
            let outcome = attempt(batch)
            if let connection {
                let roundTrips = connection.takeRoundTrips()
                health.updateMetrics { $0.writerRoundTrips += roundTrips }
            }
            switch outcome {
            case .committed(let acknowledged, let failed):
                let finished = clock.now
                health.updateMetrics { m in
                    if !acknowledged.isEmpty {
                        m.commits += 1
                        m.batchSizes.record(Double(batch.count))
                        m.batchLatency.record((finished - started).inSeconds)
                    }
                    m.writesAcknowledged += acknowledged.count
                    m.writesFailed += failed.count
                }
                for delivery in acknowledged { delivery.deliver(delivery.sequence) }
                for (request, error) in failed { request.fail(error) }
                return
            case .retry(let error):
                retries += 1
                if retries > configuration.maxRetries {
                    requests.reject(batch, with: .postgres(error))
                    return
                }
            case .failed(let error):
                requests.reject(batch, with: error)
                return
            }
        }
    }

    /// One try at `batch`. The batch's BEGIN waits for its first request's
    /// first round trip, and each request's savepoint control travels with
    /// its deferred statements in one pipeline ("RELEASE request",
    /// "SAVEPOINT request" for the next): a request costs one round trip
    /// per statement whose result it reads, plus one (`docs/postgres.md`).
    private func attempt(_ batch: [Request]) -> Attempt {
        let connection: PostgresConnection
        do {
            connection = try connected()
        } catch {
            return lost(error)
        }
        // One writing batch at a time on the database, across replicas:
        // the lock is taken before any row lock and held to the commit.
        // Two replicas' batches took the same users' rows (cart_versions)
        // in opposite orders and deadlocked, each stalling both writers
        // for deadlock_timeout (1 s) before a retry: 4-5 times per 8 s
        // of cart writes, cart writes at 355-681/s with 2-3 replicas
        // against 2,785/s with one (docs/scaling.md). It is also the
        // outbox's lock (ChangeOutbox: the gap).
        var opening = ["BEGIN", "SELECT pg_advisory_xact_lock(\(ChangeOutbox.lockKey))", "SAVEPOINT request"]
            .map { PostgresStatement($0) }
        var acknowledged: [Delivery] = []
        var failed: [(Request, any Error)] = []
        var records: [ChangeRecord] = []
        var commitLatency = 0.0
        for (index, request) in batch.enumerated() {
            let handle = PostgresHandle(connection: connection, defers: true, opening: opening)
            opening = []
            var outcome = Result { try request.perform(handle) }
            handle.invalidate()
            let isLast = index == batch.count - 1
            // After the last request: COMMIT, unless outbox rows go in first.
            func tail(keeping mine: [ChangeRecord]) -> [String] {
                isLast ? (records.isEmpty && mine.isEmpty ? ["COMMIT"] : []) : ["SAVEPOINT request"]
            }
            let started = ContinuousClock().now
            do throws(PostgresError) {
                if case .success = outcome, handle.failedStatement == nil {
                    // The request's deferred statements go with its release;
                    // if one fails the release is skipped and it fails below.
                    try handle.settle(succeeded: true, then: ["RELEASE request"] + tail(keeping: handle.recorded))
                }
                if handle.batchError == nil, case .success = outcome, let swallowed = handle.failedStatement {
                    // The closure caught a statement error and carried on, or
                    // a deferred statement failed; the savepoint is aborted,
                    // so the request fails with it.
                    outcome = .failure(StorageError.postgres(swallowed))
                }
                if handle.batchError == nil, case .failure = outcome {
                    try handle.settle(succeeded: false, then: ["ROLLBACK TO request", "RELEASE request"] + tail(keeping: []))
                }
            } catch {
                return abandon(connection, error)
            }
            if let batchError = handle.batchError { return abandon(connection, batchError) }
            if isLast && records.isEmpty { commitLatency = (ContinuousClock().now - started).inSeconds }
            switch outcome {
            case .success(let deliver):
                acknowledged.append(Delivery(deliver: deliver, recordCount: handle.recorded.count))
                records += handle.recorded
            case .failure(let error):
                failed.append((request, error))
            }
        }
        if !records.isEmpty {
            do {
                // The rows' sequence values are taken under the batch's
                // lock, held to the commit (ChangeOutbox: the gap).
                let (insert, values) = ChangeOutbox.postgresInsert(records, origin: configuration.changeOrigin)
                let inserted = try connection.run(insert, values)
                Self.hand(inserted.rows.compactMap { try? $0.get("seq") as Int64 }, to: &acknowledged)
                let started = ContinuousClock().now
                try connection.exec("SELECT pg_notify('\(ChangeOutbox.channel)', ''); COMMIT")
                commitLatency = (ContinuousClock().now - started).inSeconds
            } catch {
                return abandon(connection, error)
            }
        }
        health.updateMetrics { $0.commitLatency.record(commitLatency) }
        return .committed(acknowledged: acknowledged, failed: failed)
    }

    /// Gives each acknowledged request the newest sequence of its own rows.
    /// One INSERT took the values in its VALUES order under the outbox lock,
    /// so sorted ascending they line up with the records, request by request.
    private static func hand(_ sequences: [Int64], to deliveries: inout [Delivery]) {
        var taken = sequences.sorted()[...]
        for index in deliveries.indices {
            let mine = taken.prefix(deliveries[index].recordCount)
            taken = taken.dropFirst(deliveries[index].recordCount)
            deliveries[index].sequence = mine.last
        }
    }

    /// Rolls back what the batch did and says whether to retry or fail it.
    private func abandon(_ connection: PostgresConnection, _ error: PostgresError) -> Attempt {
        if connection.isHealthy { try? connection.exec("ROLLBACK") }
        if error.isRetryable { return .retry(error) }
        if error.meansUnavailable || !connection.isHealthy { return lost(error) }
        return .failed(.postgres(error))
    }

    private func lost(_ error: any Error) -> Attempt {
        connection = nil
        let reason = (error as? PostgresError).map { "PostgreSQL reported \($0.message)" } ?? "\(error)"
        if case StorageError.unavailable(let why, _) = error {
            health.markUnavailable(reason: why, sqlite: nil)
        } else {
            health.markUnavailable(reason: reason, sqlite: nil)
        }
        return .failed(health.unavailableError ?? .unavailable(reason: reason, sqlite: nil))
    }
}

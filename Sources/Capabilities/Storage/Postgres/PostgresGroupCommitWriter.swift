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
        /// Batches this request was taken out of for waiting on a lock.
        var deferrals = 0
    }

    /// Times a request is put into the next batch after a lock wait before
    /// it fails with the wait's error.
    static let maxDeferrals = 50

    /// How one attempt at a batch ended.
    private enum Attempt {
        case committed(acknowledged: [Delivery], failed: [(Request, any Error)], deferred: [Request])
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
            try PostgresMigrationRunner.apply(migrations, on: try self.connected())
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
        try fresh.exec("""
            SET lock_timeout = \(Self.milliseconds(configuration.lockWait));
            SET idle_in_transaction_session_timeout = \(Self.milliseconds(configuration.idleInTransactionTimeout))
            """)
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
            switch attempt(batch) {
            case .committed(let acknowledged, let failed, let deferred):
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
                requests.requeue(deferred)
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

    /// One try at `batch`. Savepoint control travels with the next step in
    /// one simple-query round trip ("RELEASE request; SAVEPOINT request",
    /// "…; COMMIT"): two round trips per single-statement request instead
    /// of three (`docs/postgres.md`).
    private func attempt(_ batch: [Request]) -> Attempt {
        let connection: PostgresConnection
        do {
            connection = try connected()
            try connection.exec("BEGIN; SAVEPOINT request")
        } catch {
            return lost(error)
        }
        var acknowledged: [Delivery] = []
        var failed: [(Request, any Error)] = []
        var deferred: [Request] = []
        var records: [ChangeRecord] = []
        var commitLatency = 0.0
        for (index, request) in batch.enumerated() {
            let handle = PostgresHandle(connection: connection)
            var outcome = Result { try request.perform(handle) }
            handle.invalidate()
            if let batchError = handle.batchError { return abandon(connection, batchError) }
            if case .success = outcome, let swallowed = handle.failedStatement {
                // The closure caught a statement error and carried on; the
                // savepoint is aborted, so the request fails with it.
                outcome = .failure(StorageError.postgres(swallowed))
            }
            let next: String
            switch outcome {
            case .success(let deliver):
                acknowledged.append(Delivery(deliver: deliver, recordCount: handle.recorded.count))
                records += handle.recorded
                next = "RELEASE request"
            case .failure(let error):
                if let wait = handle.failedStatement, wait.isLockTimeout {
                    // Another batch holds a row this request needs, perhaps
                    // waiting on one of ours: commit without it and run it
                    // first in the next batch, after that one's commit.
                    var again = request
                    again.deferrals += 1
                    if again.deferrals <= Self.maxDeferrals { deferred.append(again) } else { failed.append((request, error)) }
                } else {
                    failed.append((request, error))
                }
                next = "ROLLBACK TO request; RELEASE request"
            }
            let isLast = index == batch.count - 1
            do {
                if !isLast {
                    try connection.exec(next + "; SAVEPOINT request")
                    continue
                }
                // COMMIT releases the last savepoint; only a failure needs its own step.
                if case .failure = outcome { try connection.exec(next) }
                if !records.isEmpty {
                    let placed = try connection.run(
                        ChangeOutbox.postgresInsert,
                        ChangeOutbox.postgresInsertArguments(records, origin: configuration.changeOrigin))
                    Self.hand(placed.rows.compactMap { try? $0.get("position") as Int64 }, to: &acknowledged)
                }
                let started = ContinuousClock().now
                try connection.commit(notifying: records.isEmpty ? nil : ChangeOutbox.channel)
                commitLatency = (ContinuousClock().now - started).inSeconds
            } catch {
                return abandon(connection, error)
            }
        }
        health.updateMetrics { $0.commitLatency.record(commitLatency) }
        return .committed(acknowledged: acknowledged, failed: failed, deferred: deferred)
    }

    /// Gives each acknowledged request the newest position of its own rows:
    /// `positions` answer the batch's records in order, request by request.
    private static func hand(_ positions: [Int64], to deliveries: inout [Delivery]) {
        var taken = positions[...]
        for index in deliveries.indices {
            let mine = taken.prefix(deliveries[index].recordCount)
            taken = taken.dropFirst(deliveries[index].recordCount)
            deliveries[index].sequence = mine.max()
        }
    }

    /// Rolls back what the batch did and says whether to retry or fail it.
    private func abandon(_ connection: PostgresConnection, _ error: PostgresError) -> Attempt {
        if connection.isHealthy { try? connection.exec("ROLLBACK") }
        // A lock wait outside any request (the outbox's user rows) is
        // another batch's commit in flight: run the batch again.
        if error.isRetryable || error.isLockTimeout { return .retry(error) }
        if error.meansUnavailable || !connection.isHealthy { return lost(error) }
        return .failed(.postgres(error))
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
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

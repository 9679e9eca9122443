import Dispatch
import Glibc

/// The write connection, on its own serial Dispatch queue, with group
/// commit: each batch that `requests` (a `GroupCommitQueue`) hands out
/// becomes one transaction (`BEGIN … COMMIT`), so one PostgreSQL commit
/// (one WAL flush, one round trip) acknowledges them all. A batch runs
/// first without savepoints (`attemptWithoutSavepoints`); only when one of
/// its requests fails does it run again with a SAVEPOINT per request, which
/// keeps the failure to that request. As with
/// `GroupCommitWriter`, batching is not timed: requests that arrive while a
/// COMMIT is in flight form the next batch.
///
/// A serialization failure (40001) or deadlock (40P01) rolls the batch back
/// and runs it again, up to `maxRetries` times. A lost connection fails the
/// batch with `.unavailable` and marks storage unavailable; the next batch
/// (a probe while unavailable) connects again. A COMMIT whose answer was
/// lost with the connection is looked up by the transaction's id on a new
/// connection (`fate(of:)`): committed, the batch is acknowledged; rolled
/// back, it runs again; not known within `commitOutcomeWait`, its requests
/// fail with `StorageError.outcomeUnknown`, never as "nothing was applied".
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
    enum Attempt {
        case committed(acknowledged: [Delivery], failed: [(Request, any Error)], deferred: [Request])
        case retry(PostgresError)
        case failed(StorageError)
        /// A request of a batch run without savepoints failed: the batch
        /// was rolled back, to run again with them.
        case withSavepoints
    }

    /// An acknowledged request's delivery and the outbox sequence it gets.
    struct Delivery {
        let deliver: @Sendable (Int64?) -> Void
        let recordCount: Int
        var sequence: Int64?
    }

    /// The requests waiting for the connection, and the queue it lives on.
    private let requests: GroupCommitQueue<Request>
    var connection: PostgresConnection?
    let health: StorageHealth
    let configuration: PostgresConfiguration

    init(configuration: PostgresConfiguration, health: StorageHealth, index: Int = 0) {
        self.configuration = configuration
        self.health = health
        self.requests = GroupCommitQueue(label: "axiom.storage.postgres.writer.\(index)",
                                         maxBatchSize: configuration.maxBatchSize, health: health)
    }

    /// Requests waiting, plus one while a batch runs: 0 means idle.
    var load: Int { requests.load }

    /// Requests queued and not yet taken into a batch.
    var pendingCount: Int { requests.pendingCount }

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

    func connected() throws -> PostgresConnection {
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
        var savepoints = false
        while true {
            let outcome = savepoints ? attempt(batch) : attemptWithoutSavepoints(batch)
            if let connection {
                let roundTrips = connection.takeRoundTrips()
                health.updateMetrics { $0.writerRoundTrips += roundTrips }
            }
            switch outcome {
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
            case .withSavepoints:
                savepoints = true
                health.updateMetrics { $0.batchesRerunWithSavepoints += 1 }
            }
        }
    }

    /// One try at `batch` with a savepoint per request. The batch's BEGIN
    /// waits for its first request's first round trip, and each request's
    /// savepoint control travels with its deferred statements in one
    /// pipeline ("RELEASE request", "SAVEPOINT request" for the next): a
    /// request costs one round trip per statement whose result it reads,
    /// plus one (`docs/postgres.md`).
    private func attempt(_ batch: [Request]) -> Attempt {
        let connection: PostgresConnection
        do {
            connection = try connected()
        } catch {
            return lost(error)
        }
        // The transaction opens with the first request's first round trip,
        // and learns its id there: a COMMIT whose answer is lost is looked up by it.
        var opening = ["BEGIN", "SELECT pg_current_xact_id()::text AS xid", "SAVEPOINT request"]
            .map { PostgresStatement($0) }
        var xid: String?
        var acknowledged: [Delivery] = []
        var failed: [(Request, any Error)] = []
        var deferred: [Request] = []
        var records: [ChangeRecord] = []
        var commitLatency = 0.0
        var committedInTail = false
        for (index, request) in batch.enumerated() {
            let handle = PostgresHandle(connection: connection, defers: true, opening: opening)
            opening = []
            var outcome = Result { try request.perform(handle) }
            handle.invalidate()
            xid = xid ?? Self.transactionID(handle.opened)
            let isLast = index == batch.count - 1
            // After the last request: COMMIT, unless outbox rows go in first
            // or the transaction's id is not known yet (it would go out in
            // the same pipeline as COMMIT, and be lost with its answer).
            func tail(keeping mine: [ChangeRecord]) -> [String] {
                guard isLast else { return ["SAVEPOINT request"] }
                committedInTail = records.isEmpty && mine.isEmpty && xid != nil
                return committedInTail ? ["COMMIT"] : []
            }
            let started = ContinuousClock().now
            var stepError: PostgresError?
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
                stepError = error
            }
            if let error = stepError ?? handle.batchError {
                if index == 0, handle.openingFailed, !connection.isHealthy {
                    // The server closed the connection while it sat idle (a
                    // restart, or another writer's outage): nothing of the
                    // batch ran, so it runs again on a fresh one.
                    self.connection = nil
                    return .retry(error)
                }
                if let unsettled = settleLostCommit(committedInTail ? xid : nil, connection, error) { return unsettled }
            }
            xid = xid ?? Self.transactionID(handle.opened)
            if committedInTail { commitLatency = (ContinuousClock().now - started).inSeconds }
            switch outcome {
            case .success(let deliver):
                acknowledged.append(Delivery(deliver: deliver, recordCount: handle.recorded.count))
                records += handle.recorded
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
            }
        }
        if committedInTail {
            health.updateMetrics { $0.commitLatency.record(commitLatency) }
        } else {
            if !records.isEmpty {
                do throws(PostgresError) {
                    let placed = try connection.run(
                        ChangeOutbox.postgresInsert,
                        ChangeOutbox.postgresInsertArguments(records, origin: configuration.changeOrigin))
                    Self.hand(placed.rows.compactMap { try? $0.get("position") as Int64 }, to: &acknowledged)
                } catch {
                    return abandon(connection, error)
                }
            }
            if let unsettled = commitAlone(connection, xid: xid, notifying: !records.isEmpty) { return unsettled }
        }
        return .committed(acknowledged: acknowledged, failed: failed, deferred: deferred)
    }

    /// The batch's COMMIT in a round trip of its own, NOTIFY after it when
    /// the batch recorded changes, once the transaction's id is known
    /// (asked for here when no statement carried the opening): nil when it
    /// committed (a lost answer's fate looked up), else how the attempt ends.
    func commitAlone(_ connection: PostgresConnection, xid known: String?, notifying: Bool) -> Attempt? {
        var committing: String?
        do throws(PostgresError) {
            var xid = known
            if xid == nil {
                xid = Self.transactionID([try connection.run("SELECT pg_current_xact_id()::text AS xid", [])])
            }
            let started = ContinuousClock().now
            committing = xid
            try connection.commit(notifying: notifying ? ChangeOutbox.channel : nil)
            health.updateMetrics { $0.commitLatency.record((ContinuousClock().now - started).inSeconds) }
        } catch {
            return settleLostCommit(committing, connection, error)
        }
        return nil
    }

    /// The transaction id the opening's `SELECT` answered, if it ran.
    static func transactionID(_ opened: [PostgresResult]) -> String? {
        opened.lazy.compactMap { try? $0.rows.first?.get("xid") as String? }.first
    }

    /// After `error` in a step that sent the batch's COMMIT (`xid` is the
    /// transaction's id then, else nil): nil when the transaction committed
    /// and the batch goes on to be acknowledged, else how the attempt ends.
    func settleLostCommit(_ xid: String?, _ connection: PostgresConnection,
                          _ error: PostgresError) -> Attempt? {
        guard let xid, !connection.isHealthy || error.meansUnavailable else { return abandon(connection, error) }
        switch fate(of: xid) {
        case .committed:
            return nil
        case .rolledBack:
            return .retry(error)
        case .unknown(let why):
            _ = lost(error)
            return .failed(.outcomeUnknown(reason: "the connection to PostgreSQL broke during COMMIT (\(error.message)); \(why)"))
        }
    }

    private enum Fate {
        case committed, rolledBack, unknown(String)
    }

    /// Whether transaction `xid` committed, asked on new connections for up
    /// to `commitOutcomeWait`. A transaction the server still runs (its old
    /// session has not seen the break yet) is asked about again.
    private func fate(of xid: String) -> Fate {
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.commitOutcomeWait
        var pause = Duration.milliseconds(10)
        var why = "PostgreSQL could not be asked"
        connection = nil
        while true {
            do {
                let status = try connected().run(
                    "SELECT coalesce(pg_xact_status($1::xid8), 'forgotten') AS status", [.text(xid)]
                ).rows.first?.get("status", as: String.self)
                switch status {
                case "committed": return .committed
                case "aborted": return .rolledBack
                case "in progress": why = "transaction \(xid) was still in progress"
                default: return .unknown("PostgreSQL no longer knows transaction \(xid)")
                }
            } catch {
                why = "PostgreSQL could not be asked: \(error)"
            }
            if clock.now + pause > deadline { return .unknown(why) }
            usleep(UInt32(Self.milliseconds(pause) * 1000))
            pause = min(pause * 2, .milliseconds(250))
        }
    }

    /// Gives each acknowledged request the newest position of its own rows:
    /// `positions` answer the batch's records in order, request by request.
    static func hand(_ positions: [Int64], to deliveries: inout [Delivery]) {
        var taken = positions[...]
        for index in deliveries.indices {
            let mine = taken.prefix(deliveries[index].recordCount)
            taken = taken.dropFirst(deliveries[index].recordCount)
            deliveries[index].sequence = mine.max()
        }
    }

    /// Rolls back what the batch did and says whether to retry or fail it.
    func abandon(_ connection: PostgresConnection, _ error: PostgresError) -> Attempt {
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

    func lost(_ error: any Error) -> Attempt {
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

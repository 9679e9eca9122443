import Dispatch
import Synchronization

/// The single writer connection, on its own serial Dispatch queue, with
/// group commit.
///
/// Callers submit requests; the queue drains them in batches of at most
/// `maxBatchSize`. A batch is one `BEGIN IMMEDIATE … COMMIT`; each request
/// runs inside its own SAVEPOINT, so a request that throws rolls back only
/// its own statements. Every request of the batch is completed only after
/// COMMIT has returned (with `synchronous=FULL` the WAL is fsynced by then),
/// so an acknowledged write is durable. Batching is not timed: while one
/// COMMIT is syncing, new requests pile up and form the next batch, so the
/// batch size follows the load by itself.
final class GroupCommitWriter: @unchecked Sendable {
    // @unchecked: `connection` is confined to `queue`; everything else is
    // immutable or behind a Mutex.
    // Requests are not cancellable once submitted: a write whose task was
    // cancelled still commits (or fails) and is reported as usual.

    struct Request: Sendable {
        /// A probe (from `checkAvailability`) also runs while storage is
        /// marked unavailable; ordinary requests are refused then.
        let isProbe: Bool
        /// Runs the caller's closure; returns the action that delivers its
        /// result, to be called only after COMMIT.
        let perform: @Sendable (SQLiteHandle) throws -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
    }

    private struct Pending {
        var requests: [Request] = []
        var draining = false
        var closed = false
    }

    let queue: DispatchQueue
    private var connection: SQLiteConnection?
    private let pending = Mutex(Pending())
    private let health: StorageHealth
    private let configuration: StorageConfiguration
    /// The opened file's identity; set once on open, read from any thread.
    private let identity = Mutex<FileIdentity?>(nil)

    init(configuration: StorageConfiguration, health: StorageHealth) {
        self.configuration = configuration
        self.health = health
        self.queue = DispatchQueue(label: "axiom.storage.writer", qos: .userInitiated)
    }

    /// Opens the writer connection and applies migrations. Runs on `queue`.
    func open(migrations: [Migration]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                do {
                    try self.openOnQueue(migrations: migrations)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    private func openOnQueue(migrations: [Migration]) throws {
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: configuration.path, reader: false, configuration: configuration)
            let mode = try connection.run("PRAGMA journal_mode=WAL", []).first?[0]
            guard mode == .text("wal") else {
                throw StorageError.sqlite(SQLiteError(extendedCode: 1, message: "journal_mode is \(String(describing: mode)), not wal"))
            }
            try connection.exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
            if let pages = configuration.maxPageCount {
                _ = try connection.run("PRAGMA max_page_count=\(pages)", [])
            }
        } catch let error as SQLiteError {
            throw StorageError.opening(configuration.path, error)
        } catch StorageError.sqlite(let error) {
            throw StorageError.opening(configuration.path, error)
        }
        try MigrationRunner.apply(migrations, on: connection)
        identity.withLock { $0 = FileIdentity.of(path: configuration.path) }
        self.connection = connection
    }

    /// Queues `request`; starts a drain on the writer queue if none is running.
    func submit(_ request: Request) {
        let startDrain: Bool? = pending.withLock { state in
            if state.closed { return nil }
            state.requests.append(request)
            if state.draining { return false }
            state.draining = true
            return true
        }
        switch startDrain {
        case .none: request.fail(StorageError.closed)
        case .some(true): queue.async { self.drain() }
        case .some(false): break
        }
    }

    /// Refuses new requests, finishes the queued ones, closes the connection.
    func close() async {
        pending.withLock { $0.closed = true }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.drain()
                self.connection = nil
                continuation.resume()
            }
        }
    }

    /// Requests queued and not yet taken into a batch.
    var pendingCount: Int { pending.withLock { $0.requests.count } }

    /// The path no longer names the file we opened (deleted, renamed, replaced)?
    func fileIsGone() -> Bool {
        let opened = identity.withLock { $0 }
        return FileIdentity.of(path: configuration.path) != opened
    }

    // MARK: - Writer queue only

    private func drain() {
        while let batch = nextBatch() {
            run(batch)
        }
    }

    private func nextBatch() -> [Request]? {
        pending.withLock { state in
            if state.requests.isEmpty {
                state.draining = false
                return nil
            }
            let count = min(max(1, configuration.maxBatchSize), state.requests.count)
            let batch = Array(state.requests.prefix(count))
            state.requests.removeFirst(count)
            return batch
        }
    }

    /// Puts `requests` back at the head of the queue (a batch was lost through
    /// no fault of theirs); the running drain loop picks them up next.
    private func requeue(_ requests: [Request]) {
        guard !requests.isEmpty else { return }
        pending.withLock { $0.requests.insert(contentsOf: requests, at: 0) }
    }

    private func reject(_ requests: [Request], with error: StorageError) {
        health.updateMetrics { m in
            if error.isUnavailable { m.writesRejectedUnavailable += requests.count } else { m.writesFailed += requests.count }
        }
        for request in requests { request.fail(error) }
    }

    private func run(_ batch: [Request]) {
        guard let connection else {
            reject(batch, with: .closed)
            return
        }
        var batch = batch
        if let unavailable = health.unavailableError {
            reject(batch.filter { !$0.isProbe }, with: unavailable)
            batch = batch.filter(\.isProbe)
            if batch.isEmpty { return }
        }
        if fileIsGone() {
            health.markUnavailable(reason: "database file \(configuration.path) was removed, moved or replaced", sqlite: nil)
            reject(batch, with: health.unavailableError ?? .closed)
            return
        }

        let clock = ContinuousClock()
        let started = clock.now
        do {
            try connection.runCached("BEGIN IMMEDIATE")
        } catch {
            reject(batch, with: classify(error))
            return
        }

        var acknowledged: [(request: Request, deliver: @Sendable () -> Void)] = []
        var failed: [(request: Request, error: any Error)] = []
        var next = 0
        /// Requests neither failed on their own nor completed: the
        /// acknowledged ones and the current one onwards.
        func unfinished() -> [Request] { acknowledged.map(\.request) + batch[(next - 1)...] }
        while next < batch.count {
            let request = batch[next]
            next += 1
            do {
                try connection.runCached("SAVEPOINT request")
            } catch {
                abort(connection, unfinished: unfinished(), failed: failed, error: classify(error))
                return
            }
            let handle = SQLiteHandle(connection: connection, origin: configuration.changeOrigin)
            let outcome = Result { try request.perform(handle) }
            handle.invalidate()
            if let storageFailure = handle.unavailableError {
                // Storage is failing under this transaction: nothing of the
                // batch can be trusted to commit, even if the closure caught it.
                abort(connection, unfinished: unfinished(), failed: failed, error: classify(storageFailure))
                return
            }
            switch outcome {
            case .success(let deliver):
                do {
                    try connection.runCached("RELEASE request")
                } catch {
                    abort(connection, unfinished: unfinished(), failed: failed, error: classify(error))
                    return
                }
                acknowledged.append((request, deliver))
            case .failure(let error):
                if connection.isAutocommit {
                    // SQLite rolled back the whole transaction (e.g. SQLITE_BUSY
                    // or an interrupt): fail the culprit, retry the others.
                    health.updateMetrics { $0.writesFailed += 1 }
                    request.fail(error)
                    for (other, otherError) in failed { other.fail(otherError) }
                    health.updateMetrics { $0.writesFailed += failed.count }
                    requeue(acknowledged.map(\.request) + batch[next...])
                    return
                }
                do {
                    try connection.exec("ROLLBACK TO request; RELEASE request")
                } catch {
                    abort(connection, unfinished: unfinished(), failed: failed, error: classify(error))
                    return
                }
                failed.append((request, error))
            }
        }

        let commitStarted = clock.now
        do {
            try connection.runCached("COMMIT")
        } catch {
            let storageError = classify(error)
            if !connection.isAutocommit { try? connection.exec("ROLLBACK") }
            reject(acknowledged.map(\.request), with: storageError)
            health.updateMetrics { $0.writesFailed += failed.count }
            for (request, error) in failed { request.fail(error) }
            return
        }
        let finished = clock.now
        health.updateMetrics { m in
            if !acknowledged.isEmpty {
                m.commits += 1
                m.batchSizes.record(Double(batch.count))
                m.commitLatency.record(Self.seconds(finished - commitStarted))
                m.batchLatency.record(Self.seconds(finished - started))
            }
            m.writesAcknowledged += acknowledged.count
            m.writesFailed += failed.count
        }
        for (_, deliver) in acknowledged { deliver() }
        for (request, error) in failed { request.fail(error) }
    }

    /// Rolls the open transaction back and fails the whole batch: requests
    /// that already failed on their own get their own error, the rest `error`.
    private func abort(_ connection: SQLiteConnection, unfinished: [Request],
                       failed: [(request: Request, error: any Error)], error: StorageError) {
        if !connection.isAutocommit { try? connection.exec("ROLLBACK") }
        reject(unfinished, with: error)
        health.updateMetrics { $0.writesFailed += failed.count }
        for (request, ownError) in failed { request.fail(ownError) }
    }

    /// Maps a writer-side failure to the error callers see, marking the
    /// storage unavailable when the failure says the medium is gone.
    private func classify(_ error: any Error) -> StorageError {
        let sqlite: SQLiteError
        switch error {
        case let e as SQLiteError: sqlite = e
        case let e as StorageError:
            guard let underlying = e.sqliteError else { return e }
            sqlite = underlying
        default:
            return .sqlite(SQLiteError(extendedCode: 1, message: String(describing: error)))
        }
        if sqlite.meansUnavailable(forReader: false) {
            health.markUnavailable(reason: "SQLite reported \(sqlite.message)", sqlite: sqlite)
            return health.unavailableError ?? .unavailable(reason: sqlite.message, sqlite: sqlite)
        }
        return .sqlite(sqlite)
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

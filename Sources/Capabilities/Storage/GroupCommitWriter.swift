import Dispatch
import Synchronization

/// The single writer connection, on its own serial Dispatch queue, with
/// group commit.
///
/// Callers submit requests; `requests` (a `GroupCommitQueue`) hands them to
/// `run` in batches of at most `maxBatchSize`. A batch is one
/// `BEGIN IMMEDIATE … COMMIT`; each request runs inside its own SAVEPOINT,
/// so a request that throws rolls back only its own statements. Every
/// request of the batch is completed only after COMMIT has returned (with
/// `synchronous=FULL` the WAL is fsynced by then), so an acknowledged write
/// is durable. Batching is not timed: while one
/// COMMIT is syncing, new requests pile up and form the next batch, so the
/// batch size follows the load by itself.
final class GroupCommitWriter: @unchecked Sendable {
    // @unchecked: `connection` is confined to the writer queue; everything
    // else is immutable or behind a Mutex.
    // Requests are not cancellable once submitted: a write whose task was
    // cancelled still commits (or fails) and is reported as usual.

    struct Request: GroupCommitRequest {
        let isProbe: Bool
        /// Runs the caller's closure; returns the action that delivers its
        /// result, to be called only after COMMIT.
        let perform: @Sendable (SQLiteHandle) throws -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
    }

    /// The requests waiting for the connection, and the queue it lives on.
    let requests: GroupCommitQueue<Request>
    private var connection: SQLiteConnection?
    private let health: StorageHealth
    private let configuration: StorageConfiguration
    /// The opened file's identity; set once on open, read from any thread.
    private let identity = Mutex<FileIdentity?>(nil)

    init(configuration: StorageConfiguration, health: StorageHealth) {
        self.configuration = configuration
        self.health = health
        self.requests = GroupCommitQueue(label: "axiom.storage.writer",
                                         maxBatchSize: configuration.maxBatchSize, health: health)
    }

    /// Opens the writer connection and applies migrations, on the writer queue.
    func open(migrations: [Migration]) async throws {
        try await requests.onWriterQueue { try self.openOnQueue(migrations: migrations) }
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
        // Each request of a batch runs in a SAVEPOINT, whose sub-journal
        // keeps the first version of every page the request changes. SQLite
        // keeps it in memory up to 64 KiB (16 pages) and past that moves it
        // to a temporary file (/var/tmp/etilqs_*) that stays for the rest
        // of the batch, and every later request's pages would go through a
        // `pwrite`. In memory it is 1 KiB pieces of what one request changes, which
        // is small because every bulk write is done in bounded steps (the
        // sweeps of sessions and of the outbox, reconciliation). Set after
        // the migrations: a migration's one big UPDATE still spills to disk.
        do throws(SQLiteError) {
            try connection.exec("PRAGMA temp_store=MEMORY;")
        } catch {
            throw StorageError.opening(configuration.path, error)
        }
        identity.withLock { $0 = FileIdentity.of(path: configuration.path) }
        self.connection = connection
    }

    /// Queues `request`; its batch runs in `run` on the writer queue.
    func submit(_ request: Request) {
        requests.submit(request, running: { self.run($0) })
    }

    /// Refuses new requests, finishes the queued ones, closes the connection.
    func close() async {
        await requests.close(running: { self.run($0) }, then: { self.connection = nil })
    }

    /// The path no longer names the file we opened (deleted, renamed, replaced)?
    func fileIsGone() -> Bool {
        let opened = identity.withLock { $0 }
        return FileIdentity.of(path: configuration.path) != opened
    }

    // MARK: - Writer queue only

    /// One batch: one transaction, a SAVEPOINT per request.
    private func run(_ batch: [Request]) {
        guard let connection else {
            requests.reject(batch, with: .closed)
            return
        }
        let batch = requests.admitted(batch)
        if batch.isEmpty { return }
        if fileIsGone() {
            health.markUnavailable(reason: "database file \(configuration.path) was removed, moved or replaced", sqlite: nil)
            requests.reject(batch, with: health.unavailableError ?? .closed)
            return
        }

        let clock = ContinuousClock()
        let started = clock.now
        do {
            try connection.runCached("BEGIN IMMEDIATE")
        } catch {
            requests.reject(batch, with: classify(error))
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
                    requests.requeue(acknowledged.map(\.request) + batch[next...])
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
            requests.reject(acknowledged.map(\.request), with: storageError)
            health.updateMetrics { $0.writesFailed += failed.count }
            for (request, error) in failed { request.fail(error) }
            return
        }
        let finished = clock.now
        health.updateMetrics { m in
            if !acknowledged.isEmpty {
                m.commits += 1
                m.batchSizes.record(Double(batch.count))
                m.commitLatency.record((finished - commitStarted).inSeconds)
                m.batchLatency.record((finished - started).inSeconds)
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
        requests.reject(unfinished, with: error)
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
}

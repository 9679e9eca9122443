import FoundationEssentials

/// The SQLite storage capability: one writer connection with group commit on
/// its own serial Dispatch queue, and a pool of reader connections on queues
/// of their own. Async callers suspend on continuations; no Swift
/// concurrency thread ever waits for the disk.
///
/// Connections run with `journal_mode=WAL`, `synchronous=FULL` (a COMMIT
/// returns only after the WAL is fsynced, so an acknowledged write survives
/// `kill -9` and power loss), `foreign_keys=ON` and a `busy_timeout`.
///
/// ## Availability and re-creation
/// When the medium fails (disk full, read-only file or file system, I/O
/// error, database file or directory removed or replaced) the failing write
/// and every later one throw `StorageError.unavailable`, and `isAvailable`
/// turns false. The instance never re-creates itself. Its owner:
/// 1. answers 503 `storage_unavailable` for writes (reads may continue from
///    in-memory state);
/// 2. polls `checkAvailability()`: it returns true only when the path still
///    names the file this instance opened *and* a probe write commits — then
///    this instance is usable again (e.g. disk space was freed) and
///    `isAvailable` is true again;
/// 3. or, when the file was replaced or the instance stays unavailable,
///    calls `reopen()` (or `SQLiteStorage.open` with the same configuration):
///    a fresh instance with new connections, migrations re-checked. It throws
///    `.unavailable` while the medium is still failing, so retrying it is the
///    recovery probe. On success the owner swaps instances and closes the old one.
public final class SQLiteStorage: StorageCapability {
    public let configuration: StorageConfiguration
    public let migrations: [Migration]
    private let health: StorageHealth
    let writer: GroupCommitWriter
    private let readers: ReaderPool

    private init(configuration: StorageConfiguration, migrations: [Migration]) {
        self.configuration = configuration
        self.migrations = migrations
        self.health = StorageHealth()
        self.writer = GroupCommitWriter(configuration: configuration, health: health)
        self.readers = ReaderPool(configuration: configuration)
    }

    /// Opens (creating if needed) the database at `configuration.path`,
    /// applies the pending `migrations`, and opens the reader pool.
    /// Throws `.unavailable` when the file cannot be opened or written,
    /// `.migrationFailed` when a migration fails (it is rolled back).
    public static func open(_ configuration: StorageConfiguration, migrations: [Migration] = []) async throws -> SQLiteStorage {
        try MigrationRunner.validate(migrations)
        if configuration.createDirectory {
            let directory = URL(fileURLWithPath: configuration.path).deletingLastPathComponent().path
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StorageError.unavailable(reason: "cannot create directory \(directory): \(error)", sqlite: nil)
            }
        }
        let storage = SQLiteStorage(configuration: configuration, migrations: migrations)
        do {
            try await storage.writer.open(migrations: migrations)
            try await storage.readers.open()
        } catch {
            await storage.close()
            throw error
        }
        return storage
    }

    /// A fresh instance on the same configuration and migrations; closes this
    /// one once the new one is open. See the type's documentation.
    public func reopen() async throws -> SQLiteStorage {
        let fresh = try await SQLiteStorage.open(configuration, migrations: migrations)
        await close()
        return fresh
    }

    // MARK: Capability

    /// False once a write found the storage medium failing (until a
    /// successful `checkAvailability()`).
    public var isAvailable: Bool { health.unavailableError == nil }

    /// Why storage is unavailable, or nil.
    public var unavailableReason: String? { health.unavailableError?.description }

    /// Probes the medium: the path must still name the opened file and a
    /// small durable write (a counter in `storage_probe`) must commit.
    /// Updates `isAvailable` and returns it.
    public func checkAvailability() async -> Bool {
        if writer.fileIsGone() {
            health.markUnavailable(reason: "database file \(configuration.path) was removed, moved or replaced", sqlite: nil)
            return false
        }
        do {
            _ = try await submitWrite(isProbe: true) { handle in
                try handle.execute("""
                    INSERT INTO storage_probe(id, probe_count) VALUES(1, 1)
                    ON CONFLICT(id) DO UPDATE SET probe_count = probe_count + 1
                    """)
            }
            health.markAvailable()
            return true
        } catch {
            return false
        }
    }

    // MARK: Reads and writes

    /// Runs `body` in a write transaction and returns its result once the
    /// transaction is durably committed.
    ///
    /// Concurrent calls are committed together (group commit); each runs in
    /// its own savepoint, so throwing from `body` rolls back only this call's
    /// statements and rethrows here. `body` runs on the writer queue and must
    /// be quick and free of side effects outside the handle: if SQLite aborts
    /// the shared transaction because of another request, `body` runs again
    /// in the next batch.
    ///
    /// Throws what `body` throws, `StorageError.sqlite` (e.g. a constraint
    /// violation), or `StorageError.unavailable`.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteHandle) throws -> T) async throws -> T {
        try await submitWrite(isProbe: false, body)
    }

    /// Runs `body` on a reader connection, inside one read transaction (all
    /// its queries see the same committed snapshot).
    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteHandle) throws -> T) async throws -> T {
        let health = self.health
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            readers.submit { connection in
                guard let connection else {
                    continuation.resume(throwing: StorageError.closed)
                    return
                }
                health.updateMetrics { $0.reads += 1 }
                continuation.resume(with: Result { try Self.runRead(on: connection, body) })
            }
        }
    }

    /// A write is queued (`StorageCapability.hasWritesWaiting`).
    public var hasWritesWaiting: Bool { writer.requests.pendingCount > 0 }

    /// The write-path counters (batch sizes, commit latency, …).
    public var metrics: StorageMetrics { health.metrics }

    /// The reader pool's connections in use and reads queued, now.
    public var readerUsage: ReaderPoolUsage { readers.usage }

    /// The rows of `schema_migrations`, oldest first.
    public func appliedMigrations() async throws -> [AppliedMigration] {
        try await read { handle in
            try handle.query("SELECT version, name, applied_at FROM schema_migrations ORDER BY version").map {
                AppliedMigration(version: try $0.get(0), name: try $0.get(1), appliedAt: try $0.get(2))
            }
        }
    }

    /// Finishes queued writes, then closes every connection. Later calls
    /// throw `StorageError.closed`.
    public func close() async {
        await writer.close()
        await readers.close()
    }

    // MARK: Internals

    private func submitWrite<T: Sendable>(isProbe: Bool, _ body: @escaping @Sendable (SQLiteHandle) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            writer.submit(GroupCommitWriter.Request(
                isProbe: isProbe,
                perform: { handle in
                    let value = try body(handle)
                    return { continuation.resume(returning: value) }
                },
                fail: { continuation.resume(throwing: $0) }
            ))
        }
    }

    private static func runRead<T>(on connection: SQLiteConnection, _ body: (SQLiteHandle) throws -> T) throws -> T {
        do {
            // Cached statements: sqlite3_exec would compile BEGIN and COMMIT
            // anew for every read.
            try connection.runCached("BEGIN")
        } catch StorageError.sqlite(let error) {
            throw error.meansUnavailable(forReader: true)
                ? StorageError.unavailable(reason: "SQLite reported \(error.message)", sqlite: error)
                : StorageError.sqlite(error)
        }
        defer { try? connection.runCached("COMMIT") }
        let handle = SQLiteHandle(connection: connection)
        defer { handle.invalidate() }
        return try body(handle)
    }
}

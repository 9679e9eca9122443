/// The PostgreSQL storage capability (through libpq): group-committing
/// writer connections (`writerCount`, one unless the database is a network
/// hop away) and a bounded pool of lazily connected readers, each on a
/// Dispatch queue of its own, so no Swift concurrency thread waits for the
/// network. Same contract as `SQLiteStorage`: a write is acknowledged
/// only after its COMMIT returned (PostgreSQL's `synchronous_commit=on`
/// default flushed the WAL by then), reads see one snapshot.
///
/// ## Availability
/// A lost connection, or a server that refuses work (shutting down, disk
/// full, too many connections), fails the write with `.unavailable` and
/// turns `isAvailable` false; later writes are refused at once.
/// `checkAvailability()` connects again and commits a probe write; when it
/// succeeds the instance is usable again, so the owner's recovery loop
/// needs no `reopen` (it still works: a fresh instance on the same URL).
public final class PostgresStorage: StorageCapability {
    public let configuration: PostgresConfiguration
    public let migrations: [Migration]
    private let health = StorageHealth()
    private let writers: [PostgresGroupCommitWriter]
    private let readers: PostgresReaderPool

    private init(configuration: PostgresConfiguration, migrations: [Migration]) {
        self.configuration = configuration
        self.migrations = migrations
        writers = (0..<max(1, configuration.writerCount)).map { [health] in
            PostgresGroupCommitWriter(configuration: configuration, health: health, index: $0)
        }
        readers = PostgresReaderPool(configuration: configuration)
    }

    /// Connects the first writer and applies the pending migrations (their
    /// `postgresSQL`). The other writers and the readers connect on first
    /// use. A `writerCount` of 0 is chosen here from the round trip.
    public static func open(_ configuration: PostgresConfiguration, migrations: [Migration] = []) async throws -> PostgresStorage {
        try MigrationRunner.validate(migrations)
        var configuration = configuration
        if configuration.writerCount == 0 {
            let roundTrip = try await PostgresWriterCount.measuredRoundTrip(url: configuration.url)
            configuration.writerCount = PostgresWriterCount.forRoundTrip(roundTrip)
        }
        let storage = PostgresStorage(configuration: configuration, migrations: migrations)
        do {
            try await storage.writers[0].open(migrations: migrations)
        } catch {
            await storage.close()
            throw error
        }
        return storage
    }

    public func reopen() async throws -> PostgresStorage {
        let fresh = try await PostgresStorage.open(configuration, migrations: migrations)
        await close()
        return fresh
    }

    public var isAvailable: Bool { health.unavailableError == nil }

    public var unavailableReason: String? { health.unavailableError?.description }

    public var metrics: StorageMetrics { health.metrics }

    /// Write connections (`writerCount` as chosen at `open`).
    public var writerCount: Int { writers.count }

    /// The reader pool's connections in use and reads queued, now.
    public var readerUsage: ReaderPoolUsage { readers.usage }

    public func checkAvailability() async -> Bool {
        do {
            _ = try await submitWrite(isProbe: true) { handle in
                try handle.execute("""
                    INSERT INTO storage_probe(id, probe_count) VALUES(1, 1)
                    ON CONFLICT(id) DO UPDATE SET probe_count = storage_probe.probe_count + 1
                    """)
            }
            health.markAvailable()
            return true
        } catch {
            return false
        }
    }

    @discardableResult
    public func writeTransaction<T: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> T {
        try await submitWrite(isProbe: false, body)
    }

    /// Runs `body` on a reader connection in one `REPEATABLE READ, READ ONLY`
    /// transaction: all its queries see the same snapshot.
    @discardableResult
    public func readTransaction<T: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> T {
        let health = self.health
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            readers.submit { slot in
                guard let slot else {
                    continuation.resume(throwing: StorageError.closed)
                    return
                }
                continuation.resume(with: Result { try Self.runRead(on: slot, health: health, body) })
            }
        }
    }

    /// A write is queued on some writer (`StorageCapability.hasWritesWaiting`).
    public var hasWritesWaiting: Bool { writers.contains { $0.pendingCount > 0 } }

    public func close() async {
        for writer in writers { await writer.close() }
        await readers.close()
    }

    /// An idle writer, else the one with the fewest writes waiting.
    private var writer: PostgresGroupCommitWriter {
        guard writers.count > 1 else { return writers[0] }
        var chosen = writers[0]
        var least = chosen.load
        for candidate in writers.dropFirst() where least > 0 {
            let load = candidate.load
            if load < least { (chosen, least) = (candidate, load) }
        }
        return chosen
    }

    /// The sequence is known only after the writer's outbox INSERT, just
    /// before COMMIT (`PostgresGroupCommitWriter`): it comes with the delivery.
    public func sequencedWriteTransaction<T: Sendable>(
        _ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> (T, Int64?) {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(T, Int64?), any Error>) in
            writer.submit(PostgresGroupCommitWriter.Request(
                isProbe: false,
                perform: { handle in
                    let value = try body(handle)
                    return { sequence in continuation.resume(returning: (value, sequence)) }
                },
                fail: { continuation.resume(throwing: $0) }
            ))
        }
    }

    private func submitWrite<T: Sendable>(isProbe: Bool, _ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            writer.submit(PostgresGroupCommitWriter.Request(
                isProbe: isProbe,
                perform: { handle in
                    let value = try body(handle)
                    return { _ in continuation.resume(returning: value) }
                },
                fail: { continuation.resume(throwing: $0) }
            ))
        }
    }

    /// A read transaction: its BEGIN goes with its first query, and its
    /// COMMIT is sent without waiting for the answer (the connection reads
    /// it before its next statement), so a read of one query is one round
    /// trip. A connection the server closed (a restart, a failover) looks
    /// healthy to libpq until it is used, so the read's first round trip is
    /// what fails; nothing of the read has run then, and it runs once more
    /// on a fresh connection before it counts as unavailable. Without that,
    /// each reader's first read after PostgreSQL came back answered 503
    /// (PostgresOutageTests: an empty search right after `/ready` turned 200
    /// again).
    private static func runRead<T>(on slot: PostgresReaderPool.Slot, health: StorageHealth,
                                   _ body: (any StorageHandle) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let connection = try slot.connected()
            let handle = PostgresHandle(connection: connection, defers: false, opening: [Self.beginRead])
            defer {
                let roundTrips = connection.takeRoundTrips()
                health.updateMetrics { m in
                    m.reads += 1
                    m.readerRoundTrips += roundTrips
                }
            }
            do {
                let value = try body(handle)
                handle.invalidate()
                if !connection.isHealthy {
                    slot.disconnect()
                } else if handle.hasBegun {
                    connection.sendWithoutWaiting("COMMIT")
                }
                return value
            } catch {
                handle.invalidate()
                let staleConnection = handle.openingFailed && !connection.isHealthy
                if connection.isHealthy && handle.hasBegun { connection.sendWithoutWaiting("ROLLBACK") }
                if !connection.isHealthy { slot.disconnect() }
                if staleConnection && attempt < 2 { continue }
                throw error
            }
        }
    }

    private static let beginRead = PostgresStatement("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
}

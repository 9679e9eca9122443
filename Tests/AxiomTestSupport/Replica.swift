@_spi(Testing) import Axiom
import Capabilities

/// One "replica" of a coherence test, without an orchestrator (a process
/// has one; a test needs two): its own storage instance on a database
/// shared with the other replicas (a SQLite file or a PostgreSQL schema),
/// and its own change feed. Clients made over `storage` are the replica's.
public struct Replica: Sendable {
    public let storage: StorageAccess
    public let feed: ChangeFeed
    private let database: any StorageCapability

    /// `database`: a file path on SQLite, a URL on PostgreSQL (`StorageBackend.database(at:)`).
    public static func open(_ backend: StorageBackend, database: String, migrations: [Migration],
                            wake: ChangeFeedSettings.Wake = .notify,
                            pollInterval: Duration = .milliseconds(20)) async throws -> Replica {
        let settings = ChangeFeedSettings(wake: wake, pollInterval: pollInterval)
        let (storage, access) = try await openStorage(backend, database: database, migrations: migrations)
        return Replica(storage: access, feed: ChangeFeed(storage: access, settings: settings), database: storage)
    }

    /// A replica's own storage instance on the shared `database`, and the
    /// standalone handle its clients reach it through (`Replicas` too).
    static func openStorage(_ backend: StorageBackend, database: String,
                            migrations: [Migration]) async throws -> (any StorageCapability, StorageAccess) {
        switch backend {
        case .sqlite:
            let storage = try await SQLiteStorage.open(
                StorageConfiguration(path: database, readerCount: 2, createDirectory: true), migrations: migrations)
            return (storage, StorageAccess(try await standaloneHandle(storage)))
        case .postgres:
            let storage = try await PostgresStorage.open(PostgresConfiguration(url: database, readerCount: 2),
                                                         migrations: migrations)
            return (storage, StorageAccess(try await standaloneHandle(storage)))
        }
    }

    /// Stops the feed and closes the storage.
    public func stop() async {
        await feed.stop()
        await database.close()
    }
}

/// A handle on a fixed instance, as a registry would give it.
public func standaloneHandle<T: Capability>(_ instance: T) async throws -> CapabilityHandle<T> {
    try await CapabilityHandle.fixed(instance)
}

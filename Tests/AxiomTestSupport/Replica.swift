@_spi(Testing) import Axiom
import Capabilities

/// One "replica" of a coherence test, without an orchestrator (a process
/// has one; a test needs two): its own storage instance on a database
/// shared with the other replicas (a SQLite file or a PostgreSQL schema),
/// and its own change feed. Clients made over `storage` are the replica's.
///
///     let (a, b) = try await Replica.pair(backend, migrations: CartClient.migrations, b: .poll(every: .milliseconds(10)))
///     let cartsA = CartClient(storage: a.storage), cartsB = CartClient(storage: b.storage)
public struct Replica: Sendable {
    public let storage: StorageAccess
    public let feed: ChangeFeed
    /// The database it shares: a file path on SQLite, a URL on PostgreSQL.
    public let sharedDatabase: String
    private let database: any StorageCapability
    /// The temporary directory of the shared SQLite file, kept while any
    /// replica on it lives (`pair`, `fresh`).
    private let directory: TempDirectory?

    /// How a replica's change feed wakes: `notify` (PostgreSQL's NOTIFY,
    /// polling as a safety net every 20 ms) or polling only.
    public struct Feed: Sendable {
        public let wake: ChangeFeedSettings.Wake
        public let pollInterval: Duration

        public init(wake: ChangeFeedSettings.Wake, pollInterval: Duration) {
            self.wake = wake
            self.pollInterval = pollInterval
        }

        public static let notify = Feed(wake: .notify, pollInterval: .milliseconds(20))
        public static func poll(every interval: Duration) -> Feed { Feed(wake: .poll, pollInterval: interval) }
    }

    /// `database`: a file path on SQLite, a URL on PostgreSQL (`StorageBackend.database(at:)`).
    public static func open(_ backend: StorageBackend, database: String, migrations: [Migration],
                            wake: ChangeFeedSettings.Wake = .notify,
                            pollInterval: Duration = .milliseconds(20)) async throws -> Replica {
        try await open(backend, database: database, migrations: migrations,
                       feed: Feed(wake: wake, pollInterval: pollInterval), directory: nil)
    }

    /// Two replicas on one fresh database of `backend` (a file in a new
    /// temporary directory, or a new PostgreSQL schema), with `migrations`
    /// applied by the first; `a` and `b` are their feeds.
    public static func pair(_ backend: StorageBackend, migrations: [Migration],
                            a: Feed = .notify, b: Feed = .notify) async throws -> (Replica, Replica) {
        let first = try await fresh(backend, migrations: migrations, feed: a)
        let second = try await open(backend, database: first.sharedDatabase, migrations: migrations,
                                    feed: b, directory: first.directory)
        return (first, second)
    }

    /// One replica on a fresh database of `backend`, as `pair` makes them.
    public static func fresh(_ backend: StorageBackend, migrations: [Migration],
                             feed: Feed = .notify) async throws -> Replica {
        let directory = try TempDirectory()
        let database = try await backend.database(at: directory.path("shared.db"))
        return try await open(backend, database: database, migrations: migrations, feed: feed, directory: directory)
    }

    private static func open(_ backend: StorageBackend, database: String, migrations: [Migration],
                             feed: Feed, directory: TempDirectory?) async throws -> Replica {
        let settings = ChangeFeedSettings(wake: feed.wake, pollInterval: feed.pollInterval)
        let (storage, access) = try await openStorage(backend, database: database, migrations: migrations)
        return Replica(storage: access, feed: ChangeFeed(storage: access, settings: settings),
                       sharedDatabase: database, database: storage, directory: directory)
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

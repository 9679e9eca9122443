import Capabilities

/// Several "replicas" of the service on one database, in one test process:
/// each its own storage instance (its own connections, its own writer) on
/// the same SQLite file or the same PostgreSQL schema, for each its own
/// client instances with their own in-memory state, exactly as separate
/// server processes would have. (The orchestrator is a process singleton,
/// so replicas' clients are made directly, each over a standalone handle
/// on its replica's instance: `Replica.openStorage`, which `Replica` uses
/// too, with a change feed.)
///
///     let replicas = try await Replicas.open(3, backend: backend, migrations: CartClient.migrations)
///     let clients = replicas.accesses.map { CartClient(storage: $0) }
public struct Replicas: Sendable {
    public let storages: [any StorageCapability]
    /// One `StorageAccess` per replica, in order.
    public let accesses: [StorageAccess]
    /// The database they share: a file path (SQLite) or a URL (PostgreSQL).
    public let database: String
    private let keepAlive: TempDirectory?

    /// `count` storages on one fresh database with `migrations` applied
    /// (by the first; the others find them applied, as replicas starting
    /// after the first do).
    public static func open(_ count: Int, backend: StorageBackend, migrations: [Migration]) async throws -> Replicas {
        var directory: TempDirectory?
        let database: String
        switch backend {
        case .sqlite:
            let made = try TempDirectory()
            directory = made
            database = made.path("shared.sqlite")
        case .postgres:
            database = try await StorageBackend.freshSchemaURL()
        }
        var storages: [any StorageCapability] = []
        var accesses: [StorageAccess] = []
        for _ in 0..<count {
            let (storage, access) = try await Replica.openStorage(backend, database: database, migrations: migrations)
            storages.append(storage)
            accesses.append(access)
        }
        return Replicas(storages: storages, accesses: accesses, database: database, keepAlive: directory)
    }

    /// Runs `body` on `open`'s replicas and closes them after, whether
    /// `body` throws or not.
    public static func with<R>(_ count: Int, backend: StorageBackend, migrations: [Migration],
                               _ body: (Replicas) async throws -> R) async throws -> R {
        let replicas = try await open(count, backend: backend, migrations: migrations)
        return try await withCleanup({ await replicas.close() }) { try await body(replicas) }
    }

    /// Closes every replica's storage.
    public func close() async {
        for storage in storages { await storage.close() }
    }
}

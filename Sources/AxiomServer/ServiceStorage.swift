import Axiom
import Capabilities
import Synchronization

/// Which storage the service runs on, chosen once from the configuration:
/// the SQLite file (`database`, the default) or PostgreSQL (`database_url`,
/// `AXIOM_DATABASE_URL`). Every client gets a `StorageAccess` to it and
/// depends on its capability type, so the whole shop's data lives in one
/// place; nothing else in the composition root knows which one it is.
enum ServiceStorage: Sendable {
    case sqlite(path: String)
    case postgres(url: String, writers: Int)

    init(_ options: ServerOptions) {
        self = if let url = options.databaseURL {
            .postgres(url: url, writers: options.postgresWriters)
        } else {
            .sqlite(path: options.databasePath)
        }
    }

    /// The capability type clients declare as their dependency.
    var capability: any Capability.Type {
        switch self {
        case .sqlite: SQLiteStorage.self
        case .postgres: PostgresStorage.self
        }
    }

    /// Registers the capability, opened with every client's migrations.
    func register(on orchestrator: AxiomOrchestrator, migrations schema: [Migration]) async throws {
        switch self {
        case .sqlite(let path):
            // The directory is created on the first open only: when it
            // vanishes later, re-creation must fail (storage unavailable)
            // rather than start an empty database beside the in-memory state.
            let firstOpen = Atomic<Bool>(true)
            try await orchestrator.registerCapability(SQLiteStorage.self) {
                let configuration = StorageConfiguration(
                    path: path, createDirectory: firstOpen.exchange(false, ordering: .relaxed))
                return try await SQLiteStorage.open(configuration, migrations: schema)
            }
        case .postgres(let url, let writers):
            var configuration = PostgresConfiguration(url: url)
            configuration.writerCount = writers
            try await orchestrator.registerCapability(PostgresStorage.self) { [configuration] in
                try await PostgresStorage.open(configuration, migrations: schema)
            }
        }
    }

    /// What a client's factory hands it.
    func access(_ resolver: CapabilityResolver) throws -> StorageAccess {
        switch self {
        case .sqlite: StorageAccess(try resolver.handle(SQLiteStorage.self))
        case .postgres: StorageAccess(try resolver.handle(PostgresStorage.self))
        }
    }

    /// The same storage for the service's own machinery (the change feed),
    /// which is no client and so has no resolver.
    func access(_ registry: CapabilityRegistry) throws -> StorageAccess {
        switch self {
        case .sqlite: StorageAccess(try registry.handle(SQLiteStorage.self))
        case .postgres: StorageAccess(try registry.handle(PostgresStorage.self))
        }
    }

    /// Checks a storage that can go away while nothing writes to it: a
    /// PostgreSQL server stopped or unreachable is noticed by the next write
    /// only, and a replica with no writes would keep answering `/ready`
    /// 200. So while it is available, each recovery round commits one
    /// probe (an upsert of one row, one WAL flush; every 2 s by default),
    /// which marks it unavailable when the server is gone. A SQLite file
    /// needs none: it fails only through the writes that touch it.
    func watch(_ orchestrator: AxiomOrchestrator) async {
        guard case .postgres = self,
              let storage = try? orchestrator.capabilityRegistry.resolve(PostgresStorage.self),
              storage.isAvailable
        else { return }
        _ = await storage.checkAvailability()
    }

    /// The start-up log's fields: the file, or the URL without its password.
    var logFields: [(String, String)] {
        switch self {
        case .sqlite(let path): [("backend", "sqlite"), ("path", path)]
        case .postgres(let url, let writers):
            [("backend", "postgres"), ("url", ServerOptions.maskingPassword(url)),
             ("writers", writers == 0 ? "by round trip" : "\(writers)")]
        }
    }
}

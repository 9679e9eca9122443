import Axiom
import Capabilities
import Synchronization

/// One "process run" of a client on a SQLite file (or, for a
/// client ported to `StorageHandle`, a PostgreSQL schema: `backend`), as the
/// composition root makes it: the process's orchestrator (a singleton:
/// waited for while another test's lives), the storage capability on
/// `path` with the client's migrations, any other capabilities the test
/// registers, and the one client its factory makes, started and activated.
/// Time is a `ManualClock` the factory may hand the client and the test
/// moves. The one harness of the client test targets (users, catalogue,
/// carts, orders); each adds only its own `start`.
public struct ClientRun<C: Client>: Sendable {
    public let orchestrator: AxiomOrchestrator
    public let client: C
    public let clock: ManualClock

    public var storage: SQLiteStorage {
        get throws { try orchestrator.capabilityRegistry.resolve(SQLiteStorage.self) }
    }

    /// The storage in place, whichever backend the run is on.
    public var database: any StorageCapability {
        get throws {
            if let postgres = try? orchestrator.capabilityRegistry.resolve(PostgresStorage.self) { return postgres }
            return try orchestrator.capabilityRegistry.resolve(SQLiteStorage.self)
        }
    }

    /// Shuts the orchestrator down (deactivating the client) and closes the database.
    public func stop() async {
        await orchestrator.shutdownClosingStorage()
    }

    /// `path` is the database file on SQLite, the URL on PostgreSQL
    /// (`StorageBackend.database(at:)` makes either).
    public static func start(path: String, backend: StorageBackend = .sqlite, migrations: [Migration], readerCount: Int = 1,
                             clock: ManualClock = ManualClock(),
                             capabilities: (AxiomOrchestrator) async throws -> Void = { _ in },
                             dependencies: [any Capability.Type] = [],
                             make: @escaping @Sendable (CapabilityResolver) throws -> C) async throws -> ClientRun<C>
    where C: StatefulClient {
        try await start(path: path, backend: backend, migrations: migrations, readerCount: readerCount, clock: clock,
                        capabilities: capabilities,
                        register: { try $0.registerClient(C.self, dependencies: [$1] + dependencies, factory: $2) },
                        make: make)
    }

    /// The same for a client that owns no state (it may still publish updates).
    public static func start(path: String, backend: StorageBackend = .sqlite, migrations: [Migration],
                             clock: ManualClock = ManualClock(),
                             capabilities: (AxiomOrchestrator) async throws -> Void = { _ in },
                             dependencies: [any Capability.Type] = [],
                             make: @escaping @Sendable (CapabilityResolver) throws -> C) async throws -> ClientRun<C>
    where C: StatelessClient {
        try await start(path: path, backend: backend, migrations: migrations, readerCount: 1, clock: clock,
                        capabilities: capabilities,
                        register: { try $0.registerClient(C.self, dependencies: [$1] + dependencies, factory: $2) },
                        make: make)
    }

    private typealias Registration = (AxiomOrchestrator, any Capability.Type,
                                      @escaping @Sendable (CapabilityResolver) throws -> C) throws -> Void

    private static func start(path: String, backend: StorageBackend, migrations: [Migration], readerCount: Int,
                              clock: ManualClock, capabilities: (AxiomOrchestrator) async throws -> Void,
                              register: Registration,
                              make: @escaping @Sendable (CapabilityResolver) throws -> C) async throws -> ClientRun<C> {
        let orchestrator = try await acquireOrchestrator()
        do {
            let storageType = try await backend.register(on: orchestrator, database: path, readerCount: readerCount,
                                                         migrations: migrations)
            try await capabilities(orchestrator)
            let made = Made<C>()
            try register(orchestrator, storageType) { resolver in
                let client = try make(resolver)
                made.client.withLock { $0 = client }
                return client
            }
            try await orchestrator.start()
            guard let client = made.client.withLock({ $0 }) else { throw AxiomError.orchestratorNotStarted }
            return ClientRun(orchestrator: orchestrator, client: client, clock: clock)
        } catch {
            await orchestrator.shutdownClosingStorage()
            throw error
        }
    }
}

/// The client the orchestrator made, taken from inside its factory.
private final class Made<C: Client>: Sendable {
    let client = Mutex<C?>(nil)
}

import Axiom
import AxiomTestSupport
import Capabilities
import UserClient

/// `count` users clients on one database, as `count` server processes have
/// them: each over its own storage instance (`Replicas`), with its own
/// working sets and verified-token cache; they share only the database and
/// the run's clock (the replicas' wall clocks agree, as NTP keeps them).
/// The hasher and the random source are the orchestrator's (stateless).
struct UserReplicas {
    let clients: [UserClient]
    let clock: ManualClock
    /// Each replica's storage, to read the shared tables directly.
    let storages: [any StorageCapability]

    static func run(_ count: Int, backend: StorageBackend, throttle: LoginThrottle.Policy = LoginThrottle.Policy(),
                    cacheEntries: Int = UserClient.defaultCacheEntries,
                    _ body: (UserReplicas) async throws -> Void) async throws {
        try await Replicas.with(count, backend: backend, migrations: UserClient.migrations) { replicas in
            try await withOrchestrator { orchestrator in
                try await orchestrator.registerCapability(PasswordHasher.self) { try PasswordHasher(parameters: .minimum) }
                try await orchestrator.registerCapability(SecureRandom.self) { try SecureRandom() }
                let hasher = try orchestrator.capabilityRegistry.handle(PasswordHasher.self)
                let random = try orchestrator.capabilityRegistry.handle(SecureRandom.self)
                let clock = ManualClock()
                var clients: [UserClient] = []
                for access in replicas.accesses {
                    let client = UserClient(storage: access, hasher: hasher, random: random, clock: clock,
                                            sessionLifetime: .seconds(3600), throttle: throttle,
                                            userCacheEntries: cacheEntries, sessionCacheEntries: cacheEntries)
                    try await client.activate()
                    clients.append(client)
                }
                try await body(UserReplicas(clients: clients, clock: clock, storages: replicas.storages))
                for client in clients { await client.deactivate() }
            }
        }
    }
}

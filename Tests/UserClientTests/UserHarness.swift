import AxiomTestSupport
import Axiom
import Capabilities
import Domain
import Foundation
import Synchronization
import UserClient

extension TempDirectory {
    var databasePath: String { path("db/users.db") }
}

private final class ClientBox: Sendable {
    let client = Mutex<UserClient?>(nil)
}

/// One "process run": an orchestrator with the users client on the test's
/// database, made and activated as the composition root does.
struct UserRun {
    let orchestrator: AxiomOrchestrator
    let client: UserClient
    /// The throttle's time: moved by the test, never slept through.
    let clock: ManualClock
    let hasher: PasswordHasher

    var storage: SQLiteStorage {
        get throws { try orchestrator.capabilityRegistry.resolve(SQLiteStorage.self) }
    }

    func stop() async {
        let storage = try? self.storage
        await orchestrator.shutdown()
        await storage?.close()
    }

    static func start(_ directory: TempDirectory, throttle: LoginThrottle.Policy = LoginThrottle.Policy(),
                      sessionLifetime: Duration = .seconds(3600), clock: ManualClock = ManualClock(),
                      cacheEntries: Int = UserClient.defaultCacheEntries) async throws -> UserRun {
        let orchestrator = try await acquireOrchestrator()
        do {
            let configuration = StorageConfiguration(path: directory.databasePath, readerCount: 1, createDirectory: true)
            try await orchestrator.registerCapability(SQLiteStorage.self) {
                try await SQLiteStorage.open(configuration, migrations: UserClient.migrations)
            }
            try await orchestrator.registerCapability(PasswordHasher.self) { try PasswordHasher(parameters: .minimum) }
            try await orchestrator.registerCapability(SecureRandom.self) { try SecureRandom() }
            let box = ClientBox()
            try orchestrator.registerClient(UserClient.self,
                                            dependencies: [SQLiteStorage.self, PasswordHasher.self, SecureRandom.self]) { resolver in
                let client = UserClient(storage: try resolver.handle(SQLiteStorage.self),
                                        hasher: try resolver.handle(PasswordHasher.self),
                                        random: try resolver.handle(SecureRandom.self), clock: clock,
                                        sessionLifetime: sessionLifetime, throttle: throttle,
                                        userCacheEntries: cacheEntries, sessionCacheEntries: cacheEntries)
                box.client.withLock { $0 = client }
                return client
            }
            try await orchestrator.start()
            guard let client = box.client.withLock({ $0 }) else { throw AxiomError.orchestratorNotStarted }
            return UserRun(orchestrator: orchestrator, client: client, clock: clock,
                           hasher: try orchestrator.capabilityRegistry.resolve(PasswordHasher.self))
        } catch {
            let storage = try? orchestrator.capabilityRegistry.resolve(SQLiteStorage.self)
            await orchestrator.shutdown()
            await storage?.close()
            throw error
        }
    }
}

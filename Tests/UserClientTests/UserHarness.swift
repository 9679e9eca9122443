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

/// One "process run": an orchestrator with the users client on the test's
/// database, made and activated as the composition root does. The run's
/// clock is the throttle's and the sessions' time: moved by the test,
/// never slept through.
typealias UserRun = ClientRun<UserClient>

extension ClientRun where C == UserClient {
    var hasher: PasswordHasher {
        get throws { try orchestrator.capabilityRegistry.resolve(PasswordHasher.self) }
    }

    static func start(_ directory: TempDirectory, throttle: LoginThrottle.Policy = LoginThrottle.Policy(),
                      sessionLifetime: Duration = .seconds(3600), clock: ManualClock = ManualClock(),
                      cacheEntries: Int = UserClient.defaultCacheEntries,
                      accounts: AccountSettings = AccountSettings()) async throws -> UserRun {
        try await start(directory.databasePath, backend: .sqlite, throttle: throttle, sessionLifetime: sessionLifetime,
                        clock: clock, cacheEntries: cacheEntries, accounts: accounts)
    }

    /// `database`: a file path on SQLite, a URL on PostgreSQL (`StorageBackend.database(at:)`).
    static func start(_ database: String, backend: StorageBackend, throttle: LoginThrottle.Policy = LoginThrottle.Policy(),
                      sessionLifetime: Duration = .seconds(3600), clock: ManualClock = ManualClock(),
                      cacheEntries: Int = UserClient.defaultCacheEntries,
                      accounts: AccountSettings = AccountSettings(), webhooks: Bool = false) async throws -> UserRun {
        try await start(path: database, backend: backend, migrations: UserClient.migrations, clock: clock,
                        capabilities: { orchestrator in
                            try await orchestrator.registerCapability(PasswordHasher.self) {
                                try PasswordHasher(parameters: .minimum)
                            }
                            try await orchestrator.registerCapability(SecureRandom.self) { try SecureRandom() }
                        },
                        dependencies: [PasswordHasher.self, SecureRandom.self]) { resolver in
            UserClient(storage: try backend.access(resolver), hasher: try resolver.handle(PasswordHasher.self),
                       random: try resolver.handle(SecureRandom.self), clock: clock,
                       sessionLifetime: sessionLifetime, throttle: throttle,
                       userCacheEntries: cacheEntries, sessionCacheEntries: cacheEntries, accounts: accounts,
                       webhooks: webhooks)
        }
    }
}

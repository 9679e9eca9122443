import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import PaymentClient
import Synchronization

private final class ClientBox: Sendable {
    let client = Mutex<PaymentClient?>(nil)
}

/// A payments client over a real SQLite file or a real PostgreSQL schema,
/// made by a real orchestrator.
struct PaymentRun {
    let orchestrator: AxiomOrchestrator
    let client: PaymentClient
    let clock: ManualClock

    let backend: StorageBackend

    func stop() async {
        let storage: (any StorageCapability)? = switch backend {
        case .sqlite: try? orchestrator.capabilityRegistry.resolve(SQLiteStorage.self)
        case .postgres: try? orchestrator.capabilityRegistry.resolve(PostgresStorage.self)
        }
        await orchestrator.shutdown()
        await storage?.close()
    }

    /// `database` is a file path on SQLite, a URL on PostgreSQL
    /// (`StorageBackend.database(at:)` makes either).
    /// `migrations`: up to which the schema is brought (an older one to
    /// write rows as an earlier release stored them).
    static func start(_ database: String, backend: StorageBackend = .sqlite, secret: String? = PaymentRun.secret,
                      timeoutSeconds: Int64 = 900, clock: ManualClock = ManualClock(),
                      migrations: [Migration] = PaymentClient.migrations) async throws -> PaymentRun {
        let orchestrator = try await acquireOrchestrator()
        let storageType = try await backend.register(on: orchestrator, database: database, migrations: migrations)
        try await orchestrator.registerCapability(MessageAuthenticator.self) { try MessageAuthenticator() }
        let settings = PaymentSettings(webhookSecret: secret, webhookToleranceSeconds: 300, timeoutSeconds: timeoutSeconds)
        let box = ClientBox()
        try orchestrator.registerClient(PaymentClient.self, dependencies: [storageType, MessageAuthenticator.self]) {
            resolver in
            let storage = switch backend {
            case .sqlite: StorageAccess(try resolver.handle(SQLiteStorage.self))
            case .postgres: StorageAccess(try resolver.handle(PostgresStorage.self))
            }
            let client = PaymentClient(storage: storage,
                                       authenticator: try resolver.handle(MessageAuthenticator.self),
                                       clock: clock, settings: settings)
            box.client.withLock { $0 = client }
            return client
        }
        try await orchestrator.start()
        guard let client = box.client.withLock({ $0 }) else { throw CancellationError() }
        return PaymentRun(orchestrator: orchestrator, client: client, clock: clock, backend: backend)
    }

    /// The run's storage, for writing rows as an earlier schema held them.
    func storage() throws -> any StorageCapability {
        switch backend {
        case .sqlite: try orchestrator.capabilityRegistry.resolve(SQLiteStorage.self)
        case .postgres: try orchestrator.capabilityRegistry.resolve(PostgresStorage.self)
        }
    }

    static let secret = "whsec_test_secret"

    /// The `Axiom-Signature` a provider would send for `body` at `t`.
    static func signature(_ body: [UInt8], t: Int64, secret: String = PaymentRun.secret) throws -> String {
        let mac = try MessageAuthenticator().hmacSHA256(key: Array(secret.utf8), message: Array("\(t).".utf8) + body)
        return "t=\(t),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}

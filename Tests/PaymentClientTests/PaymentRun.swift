import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import PaymentClient

/// A payments client over a real SQLite file or a real PostgreSQL schema,
/// made by a real orchestrator: the client test targets' one harness
/// (`ClientRun`), with the message authenticator payments verify with.
typealias PaymentRun = ClientRun<PaymentClient>

extension ClientRun where C == PaymentClient {
    /// `database` is a file path on SQLite, a URL on PostgreSQL
    /// (`StorageBackend.database(at:)` makes either).
    /// `migrations`: up to which the schema is brought (an older one to
    /// write rows as an earlier release stored them).
    static func start(_ database: String, backend: StorageBackend = .sqlite, secret: String? = PaymentRun.secret,
                      timeoutSeconds: Int64 = 900, clock: ManualClock = ManualClock(),
                      migrations: [Migration] = PaymentClient.migrations,
                      webhooks: Bool = false) async throws -> PaymentRun {
        let settings = PaymentSettings(webhookSecret: secret, webhookToleranceSeconds: 300, timeoutSeconds: timeoutSeconds)
        return try await start(path: database, backend: backend, migrations: migrations, clock: clock,
                               capabilities: { orchestrator in
                                   try await orchestrator.registerCapability(MessageAuthenticator.self) {
                                       try MessageAuthenticator()
                                   }
                               },
                               dependencies: [MessageAuthenticator.self]) { resolver in
            PaymentClient(storage: try backend.access(resolver),
                          authenticator: try resolver.handle(MessageAuthenticator.self),
                          clock: clock, settings: settings, webhooks: webhooks)
        }
    }

    static var secret: String { "whsec_test_secret" }

    /// The `Axiom-Signature` a provider would send for `body` at `t`.
    static func signature(_ body: [UInt8], t: Int64, secret: String = PaymentRun.secret) throws -> String {
        let mac = try MessageAuthenticator().hmacSHA256(key: Array(secret.utf8), message: Array("\(t).".utf8) + body)
        return "t=\(t),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }
}

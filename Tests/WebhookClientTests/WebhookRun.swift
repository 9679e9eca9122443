import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
@testable import WebhookClient

/// A webhooks client over a real SQLite file or a real PostgreSQL schema,
/// made by a real orchestrator (`ClientRun`), with the capabilities it
/// sends and signs with: the HTTPS client (trusting `caFile`, private
/// addresses allowed unless a test says otherwise: receivers listen on
/// 127.0.0.1), the message authenticator and the CSPRNG.
typealias WebhookRun = ClientRun<WebhookClient>

extension ClientRun where C == WebhookClient {
    static func start(_ database: String, backend: StorageBackend = .sqlite, settings: WebhookSettings = WebhookSettings(),
                      caFile: String? = nil, allowsPrivate: Bool = true, mails: Bool = false,
                      clock: ManualClock = ManualClock()) async throws -> WebhookRun {
        let http = OutboundHTTPSettings(timeout: .seconds(5), caFile: caFile,
                                        addressPolicy: AddressPolicy(allowsPrivate: allowsPrivate))
        return try await start(path: database, backend: backend, migrations: WebhookClient.migrations, clock: clock,
                               capabilities: { orchestrator in
                                   try await orchestrator.registerCapability(OutboundHTTP.self) {
                                       try OutboundHTTP(settings: http)
                                   }
                                   try await orchestrator.registerCapability(MessageAuthenticator.self) {
                                       try MessageAuthenticator()
                                   }
                                   try await orchestrator.registerCapability(SecureRandom.self) { try SecureRandom() }
                               },
                               dependencies: [OutboundHTTP.self, MessageAuthenticator.self, SecureRandom.self]) { resolver in
            WebhookClient(storage: try backend.access(resolver), http: try resolver.handle(OutboundHTTP.self),
                          authenticator: try resolver.handle(MessageAuthenticator.self),
                          random: try resolver.handle(SecureRandom.self), clock: clock, settings: settings, mails: mails)
        }
    }

    /// Rows of a read on the storage in place.
    func rows(_ sql: String, _ arguments: [StorageValue] = []) async throws -> [StorageRow] {
        try await database.readTransaction { try $0.query(sql, arguments: arguments) }
    }

    /// The `webhook.delivery` jobs queued, by the delivery they attempt.
    func deliveryJobs() async throws -> [Int64: (runAt: Int64, state: String)] {
        var jobs: [Int64: (Int64, String)] = [:]
        for row in try await rows("SELECT unique_key, run_at, state FROM jobs WHERE kind = 'webhook.delivery'") {
            jobs[Int64(try row.get(0, as: String.self))!] = (try row.get(1), try row.get(2))
        }
        return jobs
    }

    /// An event of `type` about a new order, happening now.
    func event(_ type: WebhookEventType, at offset: Int64 = 0) -> WebhookEvent {
        WebhookEvent(type: type, subject: .order(OrderID(UUID())), at: clock.millisecondsSince1970() + offset)
    }
}

/// A URL nothing listens at: its attempts fail with a refused connection.
let closedURL = "https://127.0.0.1:9/hooks/closed"

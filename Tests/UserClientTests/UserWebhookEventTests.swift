import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import Testing
import UserClient

/// `customer.created`, enqueued in a registration's commit
/// (`UserClient(webhooks:)`): once per account made, never for a refused
/// registration, never for the admin the configuration creates.
@Suite(.serialized) struct UserWebhookEventTests {
    static let ana = NewUserRequest(name: "Ana", email: "ana@example.com", password: "correct horse battery")

    @Test(arguments: StorageBackend.all, [AccountSettings(), AccountSettings(mailEnabled: true)])
    func aRegistrationEnqueuesCustomerCreatedOnce(backend: StorageBackend, accounts: AccountSettings) async throws {
        let directory = try TempDirectory()
        let run = try await UserRun.start(try await backend.database(at: directory.databasePath), backend: backend,
                                          accounts: accounts, webhooks: true)
        let admin = try await run.client.ensureAdmin(name: "Root", email: "root@example.com", password: "a long admin secret")
        #expect(admin.role == .admin)
        let ana = try await run.client.register(Self.ana)
        // Taken (in another spelling), invalid: refused, nothing enqueued.
        await #expect(throws: EntityError.self) {
            _ = try await run.client.register(NewUserRequest(name: "Ana 2", email: "ANA@example.com",
                                                             password: "another long secret"))
        }
        await #expect(throws: ValidationError.self) {
            _ = try await run.client.register(NewUserRequest(name: "", email: "nope", password: "short"))
        }
        let events = try await run.webhookEvents()
        #expect(events.map(\.type) == [.customerCreated])
        #expect(events.first?.subject == .customer(ana.id))
        #expect(events.first?.occurredAt == ana.createdAt.millisecondsSince1970)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func withWebhooksOffARegistrationEnqueuesNothing(backend: StorageBackend) async throws {
        let directory = try TempDirectory()
        let run = try await UserRun.start(try await backend.database(at: directory.databasePath), backend: backend)
        _ = try await run.client.register(Self.ana)
        #expect(try await run.webhookEvents().isEmpty)
        await run.stop()
    }
}

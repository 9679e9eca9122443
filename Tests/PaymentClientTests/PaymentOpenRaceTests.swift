import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import PaymentClient
import Testing

/// Opening an order's payment is idempotent across replicas too: two
/// replicas that check for the payment at once both find none, one insert
/// wins on the unique order index, and the other answers the winner's
/// payment instead of failing.
@Suite(.serialized) struct PaymentOpenRaceTests {
    @Test(arguments: StorageBackend.all)
    func replicasOpeningOneOrdersPaymentAtOnceGetTheSamePayment(backend: StorageBackend) async throws {
        let (a, b) = try await Replica.pair(backend, migrations: PaymentClient.migrations)
        let settings = PaymentSettings(webhookSecret: PaymentRun.secret, webhookToleranceSeconds: 300, timeoutSeconds: 900)
        try await withOrchestrator { orchestrator in
            try await orchestrator.registerCapability(MessageAuthenticator.self) { try MessageAuthenticator() }
            let authenticator = try orchestrator.capabilityRegistry.handle(MessageAuthenticator.self)
            let clients = [a, b].map {
                PaymentClient(storage: $0.storage, authenticator: authenticator, clock: ManualClock(), settings: settings)
            }
            let cart = try PricedCart(lines: [PricedLine(productID: ProductID(UUID()), name: "Lamp", quantity: 1,
                                                         unitPrice: Money(amount: 900, currency: .usd))], currency: .usd)
            for _ in 0..<20 {
                let order = try Order.place(id: OrderID(UUID()), userID: UserID(UUID()), cart: cart, createdAt: Timestamp(Date()))
                let opened = try await withThrowingTaskGroup(of: PaymentID.self) { group in
                    for attempt in 0..<6 {
                        let client = clients[attempt % 2]
                        group.addTask { try await client.open(order, method: .provider).id }
                    }
                    return try await group.reduce(into: Set<PaymentID>()) { $0.insert($1) }
                }
                #expect(opened.count == 1)
            }
            for client in clients { await client.deactivate() }
        }
        await a.stop()
        await b.stop()
    }
}

import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import PaymentClient
import Testing

/// Webhooks delivered to several replicas (issue 13): three
/// `PaymentClient`s, each over its own storage instance on one database.
@Suite struct PaymentReplicaTests {
    func order() throws -> Order {
        let cart = try PricedCart(lines: [PricedLine(productID: ProductID(UUID()), name: "Lamp", quantity: 2,
                                                     unitPrice: Money(amount: 1500, currency: .usd))], currency: .usd)
        return try Order.place(id: OrderID(UUID()), userID: UserID(UUID()), cart: cart, createdAt: Timestamp(Date()))
    }

    /// Three payment clients on one fresh database, with the orchestrator's
    /// message authenticator (stateless).
    private func withReplicas(_ backend: StorageBackend, _ body: ([PaymentClient]) async throws -> Void) async throws {
        try await Replicas.with(3, backend: backend, migrations: PaymentClient.migrations) { replicas in
            let settings = PaymentSettings(webhookSecret: PaymentRun.secret, webhookToleranceSeconds: 300, timeoutSeconds: 900)
            try await withOrchestrator { orchestrator in
                try await orchestrator.registerCapability(MessageAuthenticator.self) { try MessageAuthenticator() }
                let authenticator = try orchestrator.capabilityRegistry.handle(MessageAuthenticator.self)
                let clients = replicas.accesses.map {
                    PaymentClient(storage: $0, authenticator: authenticator, clock: ManualClock(), settings: settings)
                }
                try await body(clients)
                for client in clients { await client.deactivate() }
            }
        }
    }

    private func open(_ client: PaymentClient, _ order: Order) async throws -> Payment {
        let payment = try await client.open(order, method: .provider)
        return payment
    }

    @Test(arguments: StorageBackend.all)
    func oneEventDeliveredToThreeReplicasAtOnceHasOneEffect(backend: StorageBackend) async throws {
        try await withReplicas(backend) { clients in
            for round in 0..<10 {
                let payment = try await open(clients[round % 3], try order())
                let event = PaymentEvent(id: "evt_\(round)", type: .paymentSucceeded, paymentID: payment.id,
                                         amount: payment.amount)
                let effects = try await withThrowingTaskGroup(of: PaymentReceipt.Effect.self) { group in
                    for client in clients {
                        group.addTask {
                            let receipt = try await client.apply(event)
                            return receipt.effect
                        }
                    }
                    return try await group.reduce(into: [PaymentReceipt.Effect]()) { $0.append($1) }
                }
                #expect(effects.filter { $0 == .applied }.count == 1)
                #expect(effects.filter { $0 == .duplicate }.count == 2)
                #expect(try await clients[(round + 1) % 3].payment(payment.id).status == .succeeded)
            }
        }
    }

    /// The provider reports the money taken on one replica while the order
    /// is cancelled on another: whichever commits first, the other sees it,
    /// and the payment ends owing a refund. Before, on PostgreSQL both
    /// changed the same waiting payment and the second overwrote the
    /// first: a paid order cancelled without a refund, or a cancelled
    /// order marked paid.
    @Test(arguments: StorageBackend.all)
    func aPaymentAndACancellationOnTwoReplicasAtOnceBothCount(backend: StorageBackend) async throws {
        try await withReplicas(backend) { clients in
            for round in 0..<10 {
                let order = try order()
                let payment = try await open(clients[0], order)
                let event = PaymentEvent(id: "evt_\(round)", type: .paymentSucceeded, paymentID: payment.id,
                                         amount: payment.amount)
                async let paid = clients[1].apply(event)
                async let cancelled = clients[2].orderCancelled(order)
                _ = try await (paid, cancelled)
                #expect(try await clients[0].payment(payment.id).status == .refundPending)
            }
        }
    }
}

import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import PaymentClient
import Testing

/// A payment change its order does not follow (here a refund completed)
/// made on replica A reaches an observer of that user on replica B, with
/// A's outbox sequence; a change the order follows records no payment row
/// (the order's own row carries it), so B publishes nothing for it.
@Suite(.serialized) struct PaymentChangeFeedTests {
    @Test(arguments: StorageBackend.all)
    func aRefundOnOneReplicaReachesAnObserverOnTheOther(backend: StorageBackend) async throws {
        let (a, b) = try await Replica.pair(backend, migrations: PaymentClient.migrations,
                                            b: .poll(every: .milliseconds(10)))
        let settings = PaymentSettings(webhookSecret: PaymentRun.secret, webhookToleranceSeconds: 300, timeoutSeconds: 900)
        try await withOrchestrator { orchestrator in
            try await orchestrator.registerCapability(MessageAuthenticator.self) { try MessageAuthenticator() }
            let authenticator = try orchestrator.capabilityRegistry.handle(MessageAuthenticator.self)
            let paymentsA = PaymentClient(storage: a.storage, authenticator: authenticator, clock: ManualClock(), settings: settings)
            let paymentsB = PaymentClient(storage: b.storage, authenticator: authenticator, clock: ManualClock(), settings: settings)
            b.feed.subscribe(paymentsB)
            try await b.feed.start()
            let cart = try PricedCart(lines: [PricedLine(productID: ProductID(UUID()), name: "Lamp", quantity: 1,
                                                         unitPrice: Money(amount: 900, currency: .usd))], currency: .usd)
            let order = try Order.place(id: OrderID(UUID()), userID: UserID(UUID()), cart: cart, createdAt: Timestamp(Date()))
            let heardOnB = paymentsB.stateBroadcaster.subscribe(key: order.userID)
            let heardOnA = paymentsA.stateBroadcaster.subscribe(key: order.userID)
            let opened = try await paymentsA.open(order, method: .provider)
            // Paid, then cancelled (owes a refund): the order follows both.
            _ = try await paymentsA.apply(PaymentEvent(id: "evt_paid", type: .paymentSucceeded,
                                                             paymentID: opened.id, amount: opened.amount))
            _ = try await paymentsA.orderCancelled(order)
            // The refund completes: the order stays cancelled.
            _ = try await paymentsA.apply(PaymentEvent(id: "evt_refund", type: .refundSucceeded,
                                                             paymentID: opened.id, amount: opened.amount))
            var sequences: [Int64?] = []
            var iterator = heardOnA.makeAsyncIterator()
            for _ in 0..<3 {
                guard case .changed(_, _, let sequence) = await iterator.next() else { break }
                sequences.append(sequence)
            }
            // Only the refund's change was recorded.
            #expect(sequences.count == 3 && sequences[0] == nil && sequences[1] == nil)
            let refundSequence = try #require(sequences.last ?? nil)
            let heard = await firstElement(of: heardOnB)
            guard case .changedElsewhere(let payment, let sequence) = heard else {
                Issue.record("expected the refund from A, got \(String(describing: heard))")
                return
            }
            #expect(payment.status == .refunded && payment.orderID == order.id)
            #expect(sequence == refundSequence)
            await paymentsA.deactivate()
            await paymentsB.deactivate()
        }
        await a.stop()
        await b.stop()
    }
}

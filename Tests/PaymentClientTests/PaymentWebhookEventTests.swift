import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import PaymentClient
import Testing

/// The webhook events a payment's changes enqueue about its order
/// (`PaymentClient(webhooks:)`), in the change's transaction: decided where
/// its mails are (`PaymentAnnouncement`).
@Suite(.serialized) struct PaymentWebhookEventTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("payment-events-\(UUID().uuidString)")
    var path: String { directory.appendingPathComponent("payments.db").path }
    let admin = LedgerActor.admin(UserID(UUID()))

    func order() throws -> Order {
        let cart = try PricedCart(lines: [PricedLine(productID: ProductID(UUID()), name: "Lamp", quantity: 2,
                                                     unitPrice: Money(amount: 1500, currency: .usd))], currency: .usd)
        return try Order.place(id: OrderID(UUID()), userID: UserID(UUID()), cart: cart, createdAt: Timestamp(Date()))
    }

    func event(_ id: String, _ type: PaymentEventType, _ payment: Payment, amount: Int64? = nil) -> PaymentEvent {
        PaymentEvent(id: id, type: type, paymentID: payment.id,
                     amount: Money(amount: amount ?? payment.amount.amount, currency: .usd), reference: id)
    }

    func movement(_ kind: LedgerKind, _ amount: Int64, _ reference: String) -> MoneyMovement {
        MoneyMovement(kind: kind, amount: Money(amount: amount, currency: .usd), method: .manual, reference: reference,
                      eventID: nil, actor: admin)
    }

    /// What the run's queue holds, as (type, order, amount).
    func enqueued(_ run: PaymentRun) async throws -> [String] {
        try await run.webhookEvents().map { event in
            guard case .order(let id) = event.subject else { return "\(event.type.rawValue) not about an order" }
            let amount = event.amount.map { " \($0.amount)" } ?? ""
            return "\(event.type.rawValue) \(id)\(amount)"
        }
    }

    @Test(arguments: StorageBackend.all) func theProvidersEventsEnqueueTheirOrdersEvents(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await PaymentRun.start(try await backend.database(at: path), backend: backend, webhooks: true)
        let placed = try order()
        let payment = try await run.client.open(placed, method: .provider)
        let id = placed.id
        #expect(try await enqueued(run).isEmpty, "a provider payment opened announces nothing")
        _ = try await run.client.apply(event("evt_declined", .paymentFailed, payment))
        _ = try await run.client.apply(event("evt_paid", .paymentSucceeded, payment))
        // The same event again changes nothing and enqueues nothing.
        #expect(try await run.client.apply(event("evt_paid", .paymentSucceeded, payment)).effect == .duplicate)
        _ = try await run.client.apply(event("evt_refund", .refundSucceeded, payment, amount: 1000))
        _ = try await run.client.apply(event("evt_chargeback", .chargebackCreated, payment, amount: 500))
        #expect(try await enqueued(run) == ["payment.failed \(id)", "order.paid \(id)", "order.refunded \(id) 1000"])
        #expect(try await run.webhookEvents().allSatisfy { $0.occurredAt == run.clock.millisecondsSince1970() })
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func manualMoneyPaysOnceItCoversTheOrderAndCancellingAPaidOrderOwesARefund(
        backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await PaymentRun.start(try await backend.database(at: path), backend: backend, webhooks: true)
        let placed = try order()
        _ = try await run.client.open(placed, method: .bankTransfer)
        let id = placed.id
        // A part of the total is money received, not a paid order.
        _ = try await run.client.record(movement(.manualPayment, 1000, "TR-1"), on: id)
        #expect(try await enqueued(run).isEmpty)
        _ = try await run.client.record(movement(.manualPayment, 2000, "TR-2"), on: id)
        _ = try await run.client.record(movement(.manualRefund, 700, "RF-1"), on: id)
        #expect(try await enqueued(run) == ["order.paid \(id)", "order.refunded \(id) 700"])
        _ = try await run.client.orderCancelled(placed)
        #expect(try await enqueued(run).last == "order.refund_owed \(id)")

        // Money for an order cancelled before it was paid: owed back, never paid.
        let gone = try order()
        _ = try await run.client.open(gone, method: .provider)
        _ = try await run.client.orderCancelled(gone)
        let late = try #require(try await run.client.payment(forOrder: gone.id))
        _ = try await run.client.apply(event("evt_late", .paymentSucceeded, late))
        #expect(try await enqueued(run).suffix(1) == ["order.refund_owed \(gone.id)"])
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aRefusedChangeOrWebhooksOffEnqueueNothing(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        var run = try await PaymentRun.start(database, backend: backend, webhooks: true)
        let placed = try order()
        let payment = try await run.client.open(placed, method: .provider)
        await #expect(throws: PaymentError.self) {
            _ = try await run.client.apply(event("evt_short", .paymentSucceeded, payment, amount: 1))
        }
        // An admin's refund beyond what was paid is refused, nothing written.
        await #expect(throws: PaymentError.self) {
            _ = try await run.client.record(movement(.manualRefund, 100, "RF-1"), on: placed.id)
        }
        #expect(try await enqueued(run).isEmpty)
        await run.stop()

        run = try await PaymentRun.start(database, backend: backend)
        _ = try await run.client.apply(event("evt_paid", .paymentSucceeded, payment))
        _ = try await run.client.orderCancelled(placed)
        #expect(try await run.client.payment(forOrder: placed.id)?.status == .refundPending)
        #expect(try await enqueued(run).isEmpty)
        await run.stop()
    }
}

import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import PaymentClient
import Testing

/// The ledger under the payments client, on both backends: every movement a
/// row, the payment's sums equal to the rows', no refund beyond what was
/// paid (the provider's kept as anomalies, the admin's refused),
/// and the payment deciding between a cancel and a ship.
@Suite(.serialized) struct PaymentLedgerTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("payment-ledger-\(UUID().uuidString)")
    var path: String { directory.appendingPathComponent("payments.db").path }

    func order() throws -> Order {
        let cart = try PricedCart(lines: [PricedLine(productID: ProductID(UUID()), name: "Lamp", quantity: 2,
                                                     unitPrice: Money(amount: 1500, currency: .usd))], currency: .usd)
        return try Order.place(id: OrderID(UUID()), userID: UserID(UUID()), cart: cart, createdAt: Timestamp(Date()))
    }

    func event(_ id: String, _ type: PaymentEventType, _ payment: Payment, amount: Int64? = nil,
               reference: String? = nil) -> PaymentEvent {
        PaymentEvent(id: id, type: type, paymentID: payment.id,
                     amount: Money(amount: amount ?? payment.amount.amount, currency: .usd), reference: reference)
    }

    /// The payment's sums are its ledger's.
    func expectSumsMatch(_ run: PaymentRun, _ orderID: OrderID) async throws {
        let payment = try #require(try await run.client.payment(forOrder: orderID))
        let entries = try await run.client.ledger(ofOrder: orderID)
        let paid = entries.filter(\.movement.kind.isIncoming).reduce(0) { $0 + $1.movement.amount.amount }
        let refunded = entries.filter { !$0.movement.kind.isIncoming }.reduce(0) { $0 + $1.movement.amount.amount }
        #expect(payment.paid == paid)
        #expect(payment.refunded == refunded)
    }

    @Test(arguments: StorageBackend.all) func aCancelBeforeThePaymentOpensLeavesACancelledPaymentThatOwesALateSuccess(
        backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await PaymentRun.start(try await backend.database(at: path), backend: backend)
        let placed = try order()
        let cancelled = try await run.client.orderCancelled(placed)
        #expect(cancelled.status == .cancelled)
        // The checkout, a step behind, opens its payment: it finds the cancelled one.
        let opened = try await run.client.open(placed, method: .provider)
        #expect(opened == cancelled)
        let late = try await run.client.apply(event("evt_late", .paymentSucceeded, opened))
        #expect(late.effect == .applied)
        #expect(late.payment.status == .refundPending)
        #expect(late.payment.refundOwed == placed.total.amount)
        #expect(try await run.client.owingRefunds(after: nil, limit: 10).map(\.id) == [opened.id])
        try await expectSumsMatch(run, placed.id)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func providerRefundsBeyondWhatWasPaidAreKeptAsAnomaliesNotApplied(
        backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await PaymentRun.start(try await backend.database(at: path), backend: backend)
        let placed = try order()
        let payment = try await run.client.open(placed, method: .provider)
        _ = try await run.client.apply(event("evt_paid", .paymentSucceeded, payment))
        let partial = try await run.client.apply(event("evt_r1", .refundSucceeded, payment, amount: 1000,
                                                             reference: "re_1"))
        #expect(partial.payment.financialStatus == .partiallyRefunded)
        #expect(partial.payment.status == .succeeded)
        // The same refund under another event id: recorded once.
        let again = try await run.client.apply(event("evt_r1b", .refundSucceeded, payment, amount: 1000,
                                                           reference: "re_1"))
        #expect(again.effect == .duplicate)
        // Beyond what is left of what was paid: kept, never applied.
        let chargeback = try await run.client.apply(event("evt_cb", .chargebackCreated, payment, amount: 2500))
        #expect(chargeback.effect == .anomaly)
        #expect(chargeback.payment.refunded == 1000)
        let near = try await run.client.apply(event("evt_max", .refundSucceeded, payment,
                                                          amount: 9_223_372_036_854_775_000))
        #expect(near.effect == .anomaly)
        let euros = try await run.client.apply(PaymentEvent(id: "evt_eur", type: .refundSucceeded,
                                                                  paymentID: payment.id,
                                                                  amount: Money(amount: 10, currency: .eur)))
        #expect(euros.effect == .anomaly)
        let kept = try await run.client.anomalies(after: nil, held: false, limit: 10)
        #expect(kept.map(\.reason) == [.exceedsPaid, .exceedsPaid, .currencyMismatch])
        #expect(kept.map(\.refundable.amount) == [payment.amount.amount - 1000, payment.amount.amount - 1000,
                                                    payment.amount.amount - 1000])
        #expect(try await run.client.payment(payment.id).refunded == 1000)
        let entries = try await run.client.ledger(ofOrder: placed.id)
        #expect(entries.map(\.movement.kind) == [.charge, .refund])
        #expect(entries.map(\.exceedsPaid) == [false, false])
        #expect(entries.map(\.movement.actor) == [.provider, .provider])
        #expect(entries.first?.movement.eventID == "evt_paid")
        // An admin's refund may not go beyond what is left either.
        let left = payment.amount.amount - 1000
        let refund = MoneyMovement(kind: .manualRefund, amount: Money(amount: left + 1, currency: .usd), method: .manual,
                                   reference: "RF-1", eventID: nil, actor: .admin(UserID(UUID())))
        await #expect(throws: PaymentError.refundExceedsPaid(payment.id, refundable: Money(amount: left, currency: .usd))) {
            _ = try await run.client.record(refund, on: placed.id)
        }
        try await expectSumsMatch(run, placed.id)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func theDeclineLeavesThePaymentPayableAndTheFirstOfShipOrCancelWins(
        backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await PaymentRun.start(try await backend.database(at: path), backend: backend)
        let shipped = try order(), cancelled = try order()
        for placed in [shipped, cancelled] {
            let payment = try await run.client.open(placed, method: .provider)
            let declined = try await run.client.apply(event("evt_no_\(placed.id)", .paymentFailed, payment))
            #expect(declined.effect == .unchanged)
            #expect(declined.payment.status == .requiresPayment)
            _ = try await run.client.apply(event("evt_yes_\(placed.id)", .paymentSucceeded, payment))
        }
        _ = try await run.client.fulfil(shipped.id)
        await #expect(throws: PaymentError.self) { _ = try await run.client.orderCancelled(shipped) }
        let refunding = try await run.client.orderCancelled(cancelled)
        #expect(refunding.status == .refundPending)
        await #expect(throws: PaymentError.self) { _ = try await run.client.fulfil(cancelled.id) }
        #expect(try await run.client.payment(forOrder: shipped.id)?.status == .succeeded)
        // Paid, then all of it given back by an admin: nothing left to ship for.
        let returned = try order()
        let payment = try await run.client.open(returned, method: .provider)
        _ = try await run.client.apply(event("evt_ret", .paymentSucceeded, payment))
        let refund = MoneyMovement(kind: .manualRefund, amount: payment.amount, method: .manual, reference: "RF-ALL",
                                   eventID: nil, actor: .admin(UserID(UUID())))
        _ = try await run.client.record(refund, on: returned.id)
        await #expect(throws: PaymentError.orderNotPaid(payment.id, status: .succeeded)) {
            _ = try await run.client.fulfil(returned.id)
        }
        await run.stop()
    }

    /// The provider's events out of order and repeated: the refund before
    /// the charge it refunds, each delivered twice. Every movement is
    /// recorded once, whatever the order, and the sums end where they
    /// would have in order.
    @Test(arguments: StorageBackend.all) func eventsOutOfOrderAndRepeatedEndWhereTheyWouldInOrder(
        backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await PaymentRun.start(try await backend.database(at: path), backend: backend)
        let placed = try order()
        let payment = try await run.client.open(placed, method: .provider)
        let refund = event("evt_refund", .refundSucceeded, payment, amount: 1200, reference: "re_9")
        let charge = event("evt_charge", .paymentSucceeded, payment, reference: "ch_9")
        var effects: [PaymentReceipt.Effect] = []
        for delivery in [refund, refund, charge, charge] {
            effects.append(try await run.client.apply(delivery).effect)
        }
        #expect(effects == [.anomaly, .duplicate, .applied, .duplicate])
        let now = try #require(try await run.client.payment(forOrder: placed.id))
        #expect(now.status == .succeeded)
        #expect(now.paid == payment.amount.amount)
        #expect(now.refunded == 1200)
        #expect(now.financialStatus == .partiallyRefunded)
        // The refund was held when it came (nothing had been paid yet) and
        // applied after the charge that it refunds.
        #expect(try await run.client.ledger(ofOrder: placed.id).map(\.movement.kind) == [.charge, .refund])
        let held = try await run.client.anomalies(after: nil, held: false, limit: 10)
        #expect(held.count == 1 && held.first?.appliedAt != nil)
        #expect(try await run.client.anomalies(after: nil, held: true, limit: 10).isEmpty)
        try await expectSumsMatch(run, placed.id)
        await run.stop()
    }

    /// Payments paid, owing and refunded before the ledger existed get the
    /// rows that say so (by the system), and their sums, at the migration.
    @Test(arguments: StorageBackend.all) func paymentsFromBeforeTheLedgerGetTheirRows(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let before = try await PaymentRun.start(database, backend: backend,
                                                migrations: PaymentClient.migrations.filter { $0.version == 500 })
        let orders = try (0..<4).map { _ in try order() }
        let statuses = ["succeeded", "refund_pending", "refunded", "expired"]
        try await before.database.writeTransaction { handle in
            for (order, status) in zip(orders, statuses) {
                try handle.execute("""
                    INSERT INTO payments(id, order_id, user_id, status, amount, currency, method, reference, expires_at,
                                         updated_at, open)
                    VALUES(?, ?, ?, ?, 3000, 'USD', ?, ?, 0, 1000, 0)
                    """, UUID().uuidString.lowercased(), order.id.description, order.userID.description, status,
                    status == "succeeded" ? "manual" : "provider", status == "succeeded" ? "TR-OLD" : nil)
            }
        }
        await before.stop()

        let run = try await PaymentRun.start(database, backend: backend)
        let payments = try await run.client.payments(forOrders: orders.map(\.id))
        let found = orders.map { payments[$0.id] }
        #expect(found.map { $0?.paid } == [3000, 3000, 3000, 0])
        #expect(found.map { $0?.refunded } == [0, 0, 3000, 0])
        #expect(found.map { $0?.refundOwed } == [0, 3000, 0, 0])
        #expect(found.map { $0?.financialStatus } == [.paid, .paid, .refunded, .unpaid])
        let kinds = try await orders.asyncMap { try await run.client.ledger(ofOrder: $0.id).map(\.movement.kind) }
        #expect(kinds == [[.manualPayment], [.charge], [.charge, .refund], []])
        let actors = try await run.client.ledger(ofOrder: orders[0].id).map(\.movement.actor)
        #expect(actors == [.system])
        #expect(try await run.client.owingRefunds(after: nil, limit: 10).map(\.orderID) == [orders[1].id])
        for order in orders { try await expectSumsMatch(run, order.id) }
        await run.stop()
    }
}

private extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}

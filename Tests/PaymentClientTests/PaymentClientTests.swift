import Axiom
import AxiomTestSupport
import Capabilities
import Domain
import Foundation
import PaymentClient
import Testing

@Suite(.serialized) struct PaymentClientTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("payment-client-\(UUID().uuidString)")
    var path: String { directory.appendingPathComponent("payments.db").path }

    func order(_ amount: Int64 = 1500) throws -> Order {
        let cart = try PricedCart(lines: [PricedLine(productID: ProductID(UUID()), name: "Lamp", quantity: 2,
                                                     unitPrice: Money(amount: amount, currency: .usd))], currency: .usd)
        return try Order.place(id: OrderID(UUID()), userID: UserID(UUID()), cart: cart, createdAt: Timestamp(Date()))
    }

    func event(_ id: String, _ type: PaymentEventType, _ payment: Payment, amount: Money? = nil) -> PaymentEvent {
        PaymentEvent(id: id, type: type, paymentID: payment.id, amount: amount ?? payment.amount)
    }

    func open(_ run: PaymentRun, _ order: Order) async throws -> Payment {
        let payment = try await run.client.open(order, method: .provider)
        return payment
    }

    func apply(_ run: PaymentRun, _ event: PaymentEvent) async throws -> PaymentReceipt {
        let receipt = try await run.client.apply(event)
        return receipt
    }

    @Test(arguments: StorageBackend.all) func openingIsIdempotentByOrderAndDueAfterTheTimeout(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await PaymentRun.start(database, backend: backend, timeoutSeconds: 60)
        let placed = try order()
        let payment = try await open(run, placed)
        #expect(payment.status == .requiresPayment)
        #expect(payment.amount == placed.total)
        #expect(payment.method == .provider)
        #expect(payment.expiresAt == Timestamp(millisecondsSince1970: run.clock.millisecondsSince1970() + 60_000))
        run.clock.advance(by: .seconds(5))
        #expect(try await open(run, placed) == payment)
        #expect(try await run.client.payment(forOrder: placed.id) == payment)
        // A new payment is not open: nothing for reconciliation to do.
        #expect(try await run.client.openPayments().isEmpty)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func signaturesAreCheckedOverTheRawBodyWithinTheTolerance(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await PaymentRun.start(database, backend: backend)
        let body = Array(#"{"id":"evt_1","type":"payment.succeeded"}"#.utf8)
        let now = run.clock.wallClockNow().components.seconds
        try run.client.verify(signature: try PaymentRun.signature(body, t: now), body: body)
        try run.client.verify(signature: try PaymentRun.signature(body, t: now - 300), body: body)
        // A second v1 (the provider rotating secrets) is accepted if one matches.
        let rotated = try PaymentRun.signature(body, t: now, secret: "old") + ",v1=" + String(try PaymentRun.signature(body, t: now).split(separator: "=").last!)
        try run.client.verify(signature: rotated, body: body)

        let refusals: [(String?, [UInt8])] = [
            (nil, body),
            ("", body),
            ("t=\(now)", body),
            ("v1=00", body),
            ("t=abc,v1=" + String(repeating: "0", count: 64), body),
            (try PaymentRun.signature(body, t: now, secret: "forged"), body),
            (try PaymentRun.signature(body, t: now - 301), body),
            (try PaymentRun.signature(body, t: now + 301), body),
            // The same JSON with a space: the raw bytes are what was signed.
            (try PaymentRun.signature(body, t: now), Array(#"{"id": "evt_1","type":"payment.succeeded"}"#.utf8)),
        ]
        for (header, bytes) in refusals {
            do {
                try run.client.verify(signature: header, body: bytes)
                Issue.record("accepted \(header ?? "no header")")
            } catch {
                #expect(error.code == "invalid_signature", "\(header ?? "no header")")
            }
        }
        await run.stop()

        let unconfigured = try await PaymentRun.start(database, backend: backend, secret: nil)
        #expect(throws: PaymentError.notConfigured) {
            try unconfigured.client.verify(signature: try PaymentRun.signature(body, t: now), body: body)
        }
        await unconfigured.stop()
    }

    @Test(arguments: StorageBackend.all) func anEventAppliesOnceEvenWhenDeliveredTwentyTimesAtOnce(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await PaymentRun.start(database, backend: backend)
        let payment = try await open(run, try order())
        let success = event("evt_once", .paymentSucceeded, payment)
        let effects = try await withThrowingTaskGroup(of: PaymentReceipt.Effect.self) { group in
            for _ in 0..<20 { group.addTask { try await apply(run, success).effect } }
            return try await group.reduce(into: [PaymentReceipt.Effect]()) { $0.append($1) }
        }
        #expect(effects.filter { $0 == .applied }.count == 1)
        #expect(effects.filter { $0 == .duplicate }.count == 19)
        #expect(try await run.client.payment(payment.id).status == .succeeded)
        #expect(await run.client.state.changes == [.succeeded: 1])
        // Another success (another event id, no provider reference) is
        // money taken twice: recorded, the payment overpaid, the excess owed.
        let twice = try await apply(run, event("evt_again", .paymentSucceeded, payment))
        #expect(twice.effect == .applied)
        #expect(twice.payment.financialStatus == .overpaid)
        #expect(twice.payment.refundOwed == payment.amount.amount)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aMismatchedAmountChangesNothingAndIsNotRemembered(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await PaymentRun.start(database, backend: backend)
        let payment = try await open(run, try order())
        let short = Money(amount: payment.amount.amount - 1, currency: .usd)
        let euros = Money(amount: payment.amount.amount, currency: .eur)
        for amount in [short, euros] {
            await #expect(throws: PaymentError.amountMismatch(expected: payment.amount, got: amount)) {
                _ = try await apply(run, event("evt_1", .paymentSucceeded, payment, amount: amount))
            }
        }
        #expect(try await run.client.payment(payment.id).status == .requiresPayment)
        // The refused event id was not recorded: its corrected delivery applies.
        #expect(try await apply(run, event("evt_1", .paymentSucceeded, payment)).effect == .applied)
        let unknown = PaymentID(UUID())
        await #expect(throws: EntityError.notFound(entity: "payment", id: unknown.description)) {
            _ = try await apply(run, PaymentEvent(id: "evt_2", type: .paymentSucceeded, paymentID: unknown,
                                                  amount: payment.amount))
        }
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func unpaidPaymentsExpireWhenTheClockPassesTheirDeadline(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await PaymentRun.start(database, backend: backend, timeoutSeconds: 900)
        let first = try await open(run, try order())
        run.clock.advance(by: .seconds(10))
        let second = try await open(run, try order())
        let paid = try await open(run, try order())
        _ = try await apply(run, event("evt_paid", .paymentSucceeded, paid))

        run.clock.advance(by: .seconds(889))
        let none = try await run.client.expireDue(limit: 10)
        #expect(none.isEmpty)
        run.clock.advance(by: .seconds(1))
        let due = try await run.client.expireDue(limit: 10)
        #expect(due.map(\.id) == [first.id])
        #expect(due.first?.status == .expired)
        run.clock.advance(by: .seconds(10))
        let later = try await run.client.expireDue(limit: 10)
        #expect(later.map(\.id) == [second.id])
        #expect(try await run.client.payment(paid.id).status == .succeeded)

        // A success the provider reports after the expiry is kept: a refund is owed.
        let late = try await apply(run, event("evt_late", .paymentSucceeded, first))
        #expect(late.effect == .applied)
        #expect(late.payment.status == .refundPending)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func cancellingRefundsAPaidPaymentAndSettlingNeedsTheSameStatus(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await PaymentRun.start(database, backend: backend)
        let waitingOrder = try order(), paidOrder = try order()
        let waiting = try await open(run, waitingOrder)
        let paid = try await open(run, paidOrder)
        _ = try await apply(run, event("evt_paid", .paymentSucceeded, paid))
        let cancelled = try await run.client.orderCancelled(waitingOrder)
        let refunding = try await run.client.orderCancelled(paidOrder)
        #expect(cancelled.status == .cancelled)
        #expect(refunding.status == .refundPending)
        #expect(refunding.refundOwed == paid.amount.amount)
        #expect(Set(try await run.client.openPayments().map(\.id)) == [waiting.id, paid.id])
        // Settling the status it no longer has leaves it open.
        _ = try await run.client.settle(paid.id, .succeeded)
        _ = try await run.client.settle(waiting.id, .cancelled)
        #expect(try await run.client.openPayments().map(\.id) == [paid.id])
        let refunded = try await apply(run, event("evt_r1", .refundSucceeded, paid))
        #expect(refunded.payment.status == .refunded)
        _ = try await run.client.settle(paid.id, .refunded)
        #expect(try await run.client.openPayments().isEmpty)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func aManualPaymentKeepsItsReferenceAndALateOneIsOwedBack(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await PaymentRun.start(database, backend: backend)
        let waiting = try await open(run, try order())
        let admin = UserID(UUID())
        func manual(_ payment: Payment, _ reference: String) async throws -> Payment? {
            try await run.client.record(MoneyMovement(kind: .manualPayment, amount: payment.amount, method: .manual,
                                                      reference: reference, eventID: nil, actor: .admin(admin)),
                                        on: payment.orderID)
        }
        guard let recorded = try await manual(waiting, "TR-1") else { throw CancellationError() }
        #expect(recorded.status == .succeeded)
        #expect(recorded.method == .manual)
        #expect(recorded.reference == "TR-1")
        #expect(recorded.financialStatus == .paid)
        // Recorded again with the same reference: nothing changes.
        guard let again = try await manual(waiting, "TR-1") else { throw CancellationError() }
        #expect(again == recorded)
        let entries = try await run.client.ledger(ofOrder: waiting.orderID)
        #expect(entries.map(\.movement.kind) == [.manualPayment])
        #expect(entries.first?.movement.actor == .admin(admin))
        // Money that arrives for a cancelled order is recorded and owed back.
        let goneOrder = try order()
        let gone = try await open(run, goneOrder)
        _ = try await run.client.orderCancelled(goneOrder)
        guard let late = try await manual(gone, "TR-2") else { throw CancellationError() }
        #expect(late.status == .refundPending)
        #expect(late.refundOwed == gone.amount.amount)
        await run.stop()
    }
}

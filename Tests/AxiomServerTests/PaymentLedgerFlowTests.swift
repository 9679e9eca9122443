import Foundation
import Testing
import TestSupport

/// The money half of a shop over real HTTP against the real binary, the
/// provider played by scripts/pay.py: every movement a ledger row, the
/// payment's state derived from its sums, declines retried, refunds after
/// shipping, bank transfers recorded by an admin, and the races between a
/// cancel, a ship, a manual payment and the provider. Each test ends by
/// checking the money invariants (`MoneyInvariants`) on every order it made.
@Suite struct PaymentLedgerFlowTests {
    typealias Shop = PaymentShop

    @Test func aDeclinedCardThenASuccessPaysTheOrder() throws {
        try Shop.run(stock: 10) { shop, _ in
            let buyer = try shop.customer("decliner")
            let placed = try shop.checkout(buyer, quantity: 2)
            let id = try #require(placed["id"] as? String)
            #expect(try shop.deliver(try shop.sign(placed, type: "payment.failed")).status == 200)
            let declined = try shop.order(id, token: buyer)
            #expect(Shop.status(declined) == "pending")
            #expect(Shop.paymentStatus(declined) == "requires_payment")
            #expect(try shop.stock() == 8)
            let paid = try shop.deliver(try shop.sign(placed))
            #expect(shop.api.object(paid)["outcome"] as? String == "applied")
            let order = try shop.order(id, token: buyer)
            #expect(Shop.status(order) == "confirmed")
            #expect(Shop.paymentStatus(order) == "succeeded")
            #expect(Self.payment(order)["financial_status"] as? String == "paid")
            #expect(try shop.stock() == 8)
            try MoneyInvariants.check(shop, orders: [id])
        }
    }

    @Test func aPartialRefundAfterShippingIsRecordedOnceThenTheRest() throws {
        try Shop.run(stock: 10) { shop, api in
            let buyer = try shop.customer("shipped")
            let placed = try shop.checkout(buyer, quantity: 2, body: Shop.addressedCheckout)
            let id = try #require(placed["id"] as? String)
            #expect(try shop.deliver(try shop.sign(placed)).status == 200)
            #expect(try api.call("PATCH", "/orders/\(id)", json: #"{"status":"shipped"}"#, token: shop.admin).status == 200)
            let half = try shop.deliver(try shop.sign(placed, type: "refund.succeeded", eventID: "evt_re_1a", amount: 4000,
                                                      reference: "re_1"))
            #expect(half.status == 200)
            #expect(api.object(half)["outcome"] as? String == "applied")
            // The provider reports the same refund again under another event id.
            let again = try shop.deliver(try shop.sign(placed, type: "refund.succeeded", eventID: "evt_re_1b", amount: 4000,
                                                       reference: "re_1"))
            #expect(api.object(again)["outcome"] as? String == "duplicate")
            let partly = try shop.order(id, token: buyer)
            #expect(Shop.status(partly) == "shipped")
            #expect(Self.payment(partly)["financial_status"] as? String == "partially_refunded")
            #expect(Self.minor(Self.payment(partly)["refunded"]) == 4000)
            #expect(try shop.deliver(try shop.sign(placed, type: "refund.succeeded", amount: 4000, reference: "re_2")).status == 200)
            let whole = try shop.order(id, token: buyer)
            #expect(Shop.status(whole) == "shipped")
            #expect(Self.payment(whole)["financial_status"] as? String == "refunded")
            let kinds = try MoneyInvariants.ledger(shop, order: id).map { $0["kind"] as? String }
            #expect(kinds == ["charge", "refund", "refund"])
            // The same three through the date-range list, one per page.
            let listed = try MoneyInvariants.entries(shop, limit: 1)
            #expect(listed.map { $0["kind"] as? String } == ["charge", "refund", "refund"])
            #expect(Set(listed.compactMap { $0["id"] as? Int }).count == 3)
            #expect(try MoneyInvariants.entries(shop, query: "&from=2999-01-01T00:00:00Z").isEmpty)
            #expect(try api.call("GET", "/payments/ledger?from=yesterday", token: shop.admin).status == 422)
            // A misspelt parameter is refused, not ignored (it would list everything).
            let misspelt = try api.call("GET", "/payments/ledger?form=2999-01-01T00:00:00Z", token: shop.admin)
            #expect(misspelt.status == 422)
            #expect((api.object(misspelt)["errors"] as? [[String: Any]])?.first?["field"] as? String == "form")
            #expect(try api.call("GET", "/payments/ledger", token: buyer).status == 403)
            try MoneyInvariants.check(shop, orders: [id])
        }
    }

    @Test func unknownEventTypesAreAcknowledgedWhateverTheirData() throws {
        try Shop.run(stock: 1) { shop, _ in
            for body in [#"{"id":"evt_c1","type":"customer.created","data":{}}"#,
                         #"{"id":"evt_c2","type":"customer.created","data":[1,2]}"#,
                         #"{"id":"evt_c3","type":"invoice.paid"}"#] {
                let answer = try shop.deliver(try shop.sign(body: body))
                #expect(answer.status == 200, "\(body)")
                #expect(shop.api.object(answer)["outcome"] as? String == "ignored", "\(body)")
            }
        }
    }

    @Test func aBankTransferWaitsDaysAndAnAdminRecordsIt() async throws {
        try await Shop.run(stock: 10, arguments: ["--payment-timeout", "1", "--manual-payment-timeout", "3"]) { shop, api in
            let buyer = try shop.customer("transfer")
            let placed = try shop.checkout(buyer, quantity: 1, body: #"{"payment_method":"bank_transfer"}"#)
            let id = try #require(placed["id"] as? String)
            let payment = Self.payment(placed)
            #expect(payment["method"] as? String == "bank_transfer")
            let due = try #require((payment["expires_at"] as? String).flatMap(Self.date))
            #expect(due.timeIntervalSince(Self.date(try #require(placed["created_at"] as? String))!) > 2.9 * 86_400)
            let refused = try api.call("POST", "/checkout", json: #"{"payment_method":"cheque"}"#, token: buyer)
            #expect(refused.status == 422)
            // An amount may be left out (the payment's), never null; nothing is recorded.
            let nullAmount = try api.call("POST", "/orders/\(id)/payment", json: #"{"status":"succeeded","reference":"x","amount":null}"#,
                                          token: shop.admin)
            #expect(nullAmount.status == 422)
            #expect(Shop.paymentStatus(try shop.order(id, token: buyer)) == "requires_payment")
            // A provider order placed beside it expires in a second; the transfer waits.
            let card = try shop.checkout(buyer, quantity: 1)
            let cardID = try #require(card["id"] as? String)
            await eventually { (try? Shop.status(shop.order(cardID, token: buyer))) == "cancelled" }
            #expect(Shop.status(try shop.order(id, token: buyer)) == "pending")

            let recorded = try api.call("POST", "/orders/\(id)/payment",
                                        json: #"{"status":"succeeded","reference":"BANK-77"}"#, token: shop.admin)
            #expect(recorded.status == 200)
            #expect(Shop.status(api.object(recorded)) == "confirmed")
            #expect(Self.payment(api.object(recorded))["method"] as? String == "bank_transfer")
            let entry = try #require(try MoneyInvariants.ledger(shop, order: id).first)
            #expect(entry["kind"] as? String == "manual_payment")
            #expect(entry["method"] as? String == "bank_transfer")
            #expect(entry["reference"] as? String == "BANK-77")
            #expect(entry["actor"] as? String == "admin")
            #expect(entry["actor_id"] as? String == (try shop.adminID()))
            try MoneyInvariants.check(shop, orders: [id, cardID])
        }
    }

    @Test func aManualPaymentThenACancelIsOwedAndCanBeRefunded() throws {
        try Shop.run(stock: 10) { shop, api in
            let (buyer, _, id) = try shop.customerWithOrder("manualcancel")
            #expect(try api.call("POST", "/orders/\(id)/payment", json: #"{"status":"succeeded","reference":"TR-1"}"#,
                                 token: shop.admin).status == 200)
            let cancelled = api.object(try api.call("POST", "/orders/\(id)/cancel", token: buyer))
            #expect(Shop.status(cancelled) == "cancelled")
            #expect(Shop.paymentStatus(cancelled) == "refund_pending")
            #expect(try MoneyInvariants.owed(shop)[id] == 4000)
            let beyond = try api.call("POST", "/orders/\(id)/refunds", json: #"{"amount":4001,"reference":"RF-0"}"#,
                                      token: shop.admin)
            #expect(beyond.status == 422)
            #expect(Shop.code(api, beyond) == "refund_exceeds_paid")
            let refunded = try api.call("POST", "/orders/\(id)/refunds", json: #"{"amount":4000,"reference":"RF-1"}"#,
                                        token: shop.admin)
            #expect(refunded.status == 200)
            #expect(Shop.paymentStatus(api.object(refunded)) == "refunded")
            #expect(try MoneyInvariants.owed(shop)[id] == nil)
            try MoneyInvariants.check(shop, orders: [id])
        }
    }

    @Test func aManualPaymentThenTheProvidersSuccessIsOverpaidAndListed() throws {
        try Shop.run(stock: 10) { shop, api in
            let (buyer, placed, id) = try shop.customerWithOrder("twice")
            #expect(try api.call("POST", "/orders/\(id)/payment", json: #"{"status":"succeeded","reference":"TR-1"}"#,
                                 token: shop.admin).status == 200)
            let second = try shop.deliver(try shop.sign(placed))
            #expect(api.object(second)["outcome"] as? String == "applied")
            let order = try shop.order(id, token: buyer)
            #expect(Shop.status(order) == "confirmed")
            #expect(Self.payment(order)["financial_status"] as? String == "overpaid")
            #expect(try MoneyInvariants.owed(shop)[id] == 4000)
            // A third payment, by hand, is owed back as well.
            #expect(try api.call("POST", "/orders/\(id)/payment", json: #"{"status":"succeeded","reference":"TR-2"}"#,
                                 token: shop.admin).status == 200)
            #expect(try MoneyInvariants.owed(shop)[id] == 8000)
            try MoneyInvariants.check(shop, orders: [id])
        }
    }

    @Test func shippingNeedsAPaidOrder() throws {
        try Shop.run(stock: 10) { shop, _ in
            let (buyer, _, id) = try shop.customerWithOrder("unpaid")
            let refused = try shop.api.call("PATCH", "/orders/\(id)", json: #"{"status":"shipped"}"#, token: shop.admin)
            #expect(refused.status == 409)
            #expect(Shop.status(try shop.order(id, token: buyer)) == "pending")
        }
    }

    /// The paid order's cancel and its ship sent at once, 30 times: never a
    /// cancel answered 200 with the order shipped, never a shipped order
    /// whose payment owes a refund; the one that lost is 409.
    @Test func aCancelRacingAShipOnAPaidOrderHasOneWinner() async throws {
        try await Shop.run(stock: 100) { shop, _ in
            let buyer = try shop.customer("racer")
            let port = shop.server.port, admin = shop.admin
            var ids: [String] = []
            for _ in 0..<30 {
                let placed = try shop.checkout(buyer, body: Shop.addressedCheckout)
                let id = try #require(placed["id"] as? String)
                #expect(try shop.deliver(try shop.sign(placed)).status == 200)
                // Each answer as (status, the order's status in its body).
                async let ship = Task.detached { () throws -> (Int, String?) in
                    let api = Shop.API(port: port)
                    let answer = try api.call("PATCH", "/orders/\(id)", json: #"{"status":"shipped"}"#, token: admin)
                    return (answer.status, Shop.status(api.object(answer)))
                }.value
                async let cancel = Task.detached { () throws -> (Int, String?) in
                    let api = Shop.API(port: port)
                    let answer = try api.call("POST", "/orders/\(id)/cancel", token: buyer)
                    return (answer.status, Shop.status(api.object(answer)))
                }.value
                let (shipped, cancelled) = try await (ship, cancel)
                #expect([shipped.0, cancelled.0].sorted() == [200, 409], "\(id)")
                if cancelled.0 == 200 { #expect(cancelled.1 == "cancelled") }
                if shipped.0 == 200 { #expect(shipped.1 == "shipped") }
                let order = try shop.order(id, token: buyer)
                switch Shop.status(order) {
                case "shipped": #expect(Shop.paymentStatus(order) == "succeeded")
                case "cancelled": #expect(Shop.paymentStatus(order) == "refund_pending")
                default: Issue.record("order \(id) is \(Shop.status(order) ?? "?")")
                }
                ids.append(id)
            }
            try MoneyInvariants.check(shop, orders: ids)
        }
    }

    /// Ten refunds of 1,500 sent at once on a paid 4,000: two are recorded,
    /// the rest refused, and the refunds never exceed what was paid.
    @Test func racingAdminRefundsNeverExceedWhatWasPaid() async throws {
        try await Shop.run(stock: 10) { shop, _ in
            let port = shop.server.port, admin = shop.admin
            let (buyer, placed, id) = try shop.customerWithOrder("refunds")
            #expect(try shop.deliver(try shop.sign(placed)).status == 200)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        try Shop.API(port: port).call("POST", "/orders/\(id)/refunds",
                                                      json: #"{"amount":1500,"reference":"RF-\#(index)"}"#, token: admin).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 2)
            #expect(statuses.filter { $0 == 422 }.count == 8)
            #expect(Self.minor(Self.payment(try shop.order(id, token: buyer))["refunded"]) == 3000)
            try MoneyInvariants.check(shop, orders: [id])
        }
    }

    /// Webhook successes, cancels, ships and manual payments on the same
    /// orders at once: whatever wins, every order's ledger sums are its
    /// payment's, no admin refund exceeds what was paid, and a cancelled
    /// order that was paid owes its money back.
    @Test func concurrentWebhooksCancelsShipsAndManualPaymentsKeepTheInvariants() async throws {
        try await Shop.run(stock: 100) { shop, _ in
            let port = shop.server.port, admin = shop.admin
            let buyer = try shop.customer("chaos")
            var ids: [String] = []
            for round in 0..<12 {
                let placed = try shop.checkout(buyer, body: Shop.addressedCheckout)
                let id = try #require(placed["id"] as? String)
                let success = try shop.sign(placed, eventID: "evt_chaos_\(round)")
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        _ = try Shop.API(port: port).call("POST", "/payments/webhook", json: success.body,
                                                          headers: ["Axiom-Signature": success.signature])
                    }
                    group.addTask { _ = try Shop.API(port: port).call("POST", "/orders/\(id)/cancel", token: buyer) }
                    group.addTask {
                        _ = try Shop.API(port: port).call("POST", "/orders/\(id)/payment",
                                                          json: #"{"status":"succeeded","reference":"TR-\#(round)"}"#, token: admin)
                    }
                    group.addTask {
                        _ = try Shop.API(port: port).call("PATCH", "/orders/\(id)", json: #"{"status":"shipped"}"#, token: admin)
                    }
                    try await group.waitForAll()
                }
                ids.append(id)
            }
            try MoneyInvariants.check(shop, orders: ids)
            let owed = try MoneyInvariants.owed(shop)
            for id in ids {
                let order = try shop.order(id, token: buyer)
                let paid = Self.minor(Self.payment(order)["paid"]) ?? 0
                if Shop.status(order) == "cancelled" { #expect(owed[id] == paid, "\(id)") }
                if Shop.status(order) == "shipped" { #expect(Shop.paymentStatus(order) == "succeeded", "\(id)") }
            }
        }
    }

    static func payment(_ order: [String: Any]) -> [String: Any] { order["payment"] as? [String: Any] ?? [:] }

    static func minor(_ money: Any?) -> Int? { (money as? [String: Any])?["amount"] as? Int }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

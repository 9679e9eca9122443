import Foundation
import Testing
import TestSupport

/// The payment flow over real HTTP against the real binary, the provider
/// played by scripts/pay.py: checkout leaves the order pending with a
/// payment; signed webhooks confirm or cancel it, once per event; unpaid
/// orders expire; a decline leaves the order payable; cancelling owes a
/// refund; admins record manual payments.
@Suite struct PaymentFlowTests {
    typealias Shop = PaymentShop

    @Test func successConfirmsAndBadDeliveriesChangeNothing() throws {
        try Shop.run(stock: 10) { shop, api in
            let alice = try shop.customer("alice"), bob = try shop.customer("bob")
            let placed = try shop.checkout(alice, quantity: 2)
            let orderID = try #require(placed["id"] as? String)
            #expect(Shop.status(placed) == "pending")
            let payment = try #require(placed["payment"] as? [String: Any])
            #expect(payment["status"] as? String == "requires_payment")
            #expect(payment["method"] as? String == "provider")
            #expect(payment["expires_at"] is String)
            #expect(payment["reference"] is NSNull)
            #expect((payment["amount"] as? [String: Any])?["amount"] as? Int == 8000)
            #expect(try shop.stock() == 8)
            // Another user's order stays invisible, and only admins record payments.
            #expect(try api.call("GET", "/orders/\(orderID)", token: bob).status == 404)
            #expect(try api.call("POST", "/orders/\(orderID)/payment", json: #"{"status":"succeeded","reference":"x"}"#,
                                 token: bob).status == 403)

            let good = try shop.sign(placed, eventID: "evt_good")
            // An hour either way: far outside the 300 s tolerance whatever the
            // time between signing here and checking in the server (the exact
            // boundary is PaymentClientTests', on a moved clock).
            let refusals: [(String, String?, Int, String)] = [
                ("missing", nil, 400, "invalid_signature"),
                ("malformed", "t=now,v1=zz", 400, "invalid_signature"),
                ("forged", try shop.sign(placed, eventID: "evt_good", secret: "not the secret").signature, 400, "invalid_signature"),
                ("stale", try shop.sign(placed, eventID: "evt_good", timestampOffset: -3_600).signature, 400, "invalid_signature"),
                ("future", try shop.sign(placed, eventID: "evt_good", timestampOffset: 3_600).signature, 400, "invalid_signature"),
            ]
            for (name, signature, status, code) in refusals {
                let answer = try shop.post(good.body, signature: signature)
                #expect(answer.status == status, "\(name)")
                #expect(Shop.code(api, answer) == code, "\(name)")
            }
            // The signed bytes are what counts: the same event re-encoded is refused.
            let respaced = good.body.replacingOccurrences(of: ",", with: ", ")
            #expect(try shop.post(respaced, signature: good.signature).status == 400)
            let short = try shop.deliver(try shop.sign(placed, eventID: "evt_short", amount: 7999))
            #expect(short.status == 422)
            #expect(Shop.code(api, short) == "amount_mismatch")
            let euros = try shop.deliver(try shop.sign(placed, eventID: "evt_eur", currency: "EUR"))
            #expect(Shop.code(api, euros) == "amount_mismatch")
            let unknown = try shop.deliver(try shop.sign(placed, paymentID: UUID().uuidString.lowercased()))
            #expect(unknown.status == 404)
            #expect(Shop.code(api, unknown) == "payment_not_found")
            let ignored = try shop.deliver(try shop.sign(placed, type: "payment.disputed"))
            #expect(ignored.status == 200)
            #expect(api.object(ignored)["outcome"] as? String == "ignored")
            #expect(Shop.status(try shop.order(orderID, token: alice)) == "pending")
            #expect(Shop.paymentStatus(try shop.order(orderID, token: alice)) == "requires_payment")

            let applied = try shop.deliver(good)
            #expect(applied.status == 200)
            #expect(api.object(applied)["outcome"] as? String == "applied")
            let paid = try shop.order(orderID, token: alice)
            #expect(Shop.status(paid) == "confirmed")
            #expect(Shop.paymentStatus(paid) == "succeeded")
            // Replayed: 200, nothing changes again.
            let replayed = try shop.deliver(good)
            #expect(replayed.status == 200)
            #expect(api.object(replayed)["outcome"] as? String == "duplicate")
            #expect(Shop.status(try shop.order(orderID, token: alice)) == "confirmed")

            // A declined attempt leaves the order payable, its stock held.
            let second = try shop.checkout(alice, quantity: 3)
            #expect(try shop.stock() == 5)
            let declined = try shop.deliver(try shop.sign(second, type: "payment.failed"))
            #expect(declined.status == 200)
            #expect(api.object(declined)["outcome"] as? String == "unchanged")
            let failed = try shop.order(try #require(second["id"] as? String), token: alice)
            #expect(Shop.status(failed) == "pending")
            #expect(Shop.paymentStatus(failed) == "requires_payment")
            #expect(try shop.stock() == 5)
            // The list carries each order's payment.
            let listed = (api.object(try api.call("GET", "/orders", token: alice))["items"] as? [[String: Any]]) ?? []
            #expect(listed.compactMap(Shop.paymentStatus) == ["requires_payment", "succeeded"])
        }
    }

    @Test func cancellingBeforePaymentCancelsItAndAfterPaymentRefundsIt() throws {
        try Shop.run(stock: 10) { shop, api in
            let (carol, unpaid, unpaidID) = try shop.customerWithOrder("carol")
            let cancelled = api.object(try api.call("POST", "/orders/\(unpaidID)/cancel", token: carol))
            #expect(Shop.status(cancelled) == "cancelled")
            #expect(Shop.paymentStatus(cancelled) == "cancelled")
            #expect(try shop.stock() == 10)
            // The provider's success arriving after the cancel is recorded, not
            // lost: the money is owed back; the order stays cancelled, no stock moves.
            let late = try shop.deliver(try shop.sign(unpaid))
            #expect(late.status == 200)
            let owed = try shop.order(unpaidID, token: carol)
            #expect(Shop.status(owed) == "cancelled")
            #expect(Shop.paymentStatus(owed) == "refund_pending")
            #expect(try shop.stock() == 10)

            let paid = try shop.checkout(carol, quantity: 2)
            let paidID = try #require(paid["id"] as? String)
            #expect(try shop.deliver(try shop.sign(paid)).status == 200)
            #expect(try shop.stock() == 8)
            let refunding = api.object(try api.call("POST", "/orders/\(paidID)/cancel", token: carol))
            #expect(Shop.status(refunding) == "cancelled")
            #expect(Shop.paymentStatus(refunding) == "refund_pending")
            #expect(try shop.stock() == 10)
            // The refund changes only the payment; it reaches /events as order.updated.
            let stream = try EventStreamClient(port: shop.server.port, token: carol, lastEventID: nil)
            let refund = try shop.deliver(try shop.sign(paid, type: "refund.succeeded"))
            #expect(refund.status == 200)
            let event = try #require(try stream.nextEvent())
            #expect(event.type == "order.updated")
            #expect(event.object["id"] as? String == paidID)
            #expect(Shop.paymentStatus(event.object) == "refunded")
            #expect(Shop.paymentStatus(try shop.order(paidID, token: carol)) == "refunded")
            #expect(try shop.stock() == 10)
            // A provider refund beyond what was paid is acknowledged (a provider
            // would retry it for days) and kept as an anomaly, not applied; the
            // charge arriving after it lets the ledger take it.
            let waiting = try shop.checkout(carol)
            let waitingID = try #require(waiting["id"] as? String)
            let overRefund = try shop.deliver(try shop.sign(waiting, type: "refund.succeeded"))
            #expect(overRefund.status == 200)
            #expect(api.object(overRefund)["outcome"] as? String == "anomaly")
            let ledger = { api.object(try api.call("GET", "/orders/\(waitingID)/ledger", token: shop.admin))["items"]
                as? [[String: Any]] ?? [] }
            #expect(try ledger().isEmpty)
            #expect(try shop.deliver(try shop.sign(waiting)).status == 200)
            #expect(try ledger().map { $0["kind"] as? String } == ["charge", "refund"])
            #expect(try ledger().allSatisfy { $0["exceeds_paid"] as? Bool == false })
        }
    }

    @Test func adminsRecordManualPayments() throws {
        try Shop.run(stock: 10) { shop, api in
            let (dave, _, orderID) = try shop.customerWithOrder("dave")
            for body in [#"{"status":"failed","reference":"TR-1"}"#, #"{"status":"succeeded"}"#,
                         #"{"status":"succeeded","reference":""}"#] {
                #expect(try api.call("POST", "/orders/\(orderID)/payment", json: body, token: shop.admin).status == 422, "\(body)")
            }
            #expect(try api.call("POST", "/orders/\(UUID().uuidString.lowercased())/payment",
                                 json: #"{"status":"succeeded","reference":"TR-1"}"#, token: shop.admin).status == 404)
            let recorded = try api.call("POST", "/orders/\(orderID)/payment",
                                        json: #"{"status":"succeeded","reference":"TR-2026-001"}"#, token: shop.admin)
            #expect(recorded.status == 200)
            let object = api.object(recorded)
            #expect(Shop.status(object) == "confirmed")
            let payment = try #require(object["payment"] as? [String: Any])
            #expect(payment["status"] as? String == "succeeded")
            #expect(payment["method"] as? String == "manual")
            #expect(payment["reference"] as? String == "TR-2026-001")
            #expect(payment["financial_status"] as? String == "paid")
            #expect(Shop.paymentStatus(try shop.order(orderID, token: dave)) == "succeeded")
            // Money received for a cancelled order is recorded and owed back.
            let gone = try shop.checkout(dave)
            let goneID = try #require(gone["id"] as? String)
            #expect(try api.call("POST", "/orders/\(goneID)/cancel", token: dave).status == 200)
            let late = try api.call("POST", "/orders/\(goneID)/payment", json: #"{"status":"succeeded","reference":"TR-9"}"#,
                                    token: shop.admin)
            #expect(late.status == 200)
            #expect(Shop.status(api.object(late)) == "cancelled")
            #expect(Shop.paymentStatus(api.object(late)) == "refund_pending")
            #expect(((api.object(late)["payment"] as? [String: Any])?["refund_owed"] as? [String: Any])?["amount"] as? Int == 4000)
        }
    }

    @Test func unpaidOrdersExpireAndReturnTheirStock() async throws {
        try await Shop.run(stock: 10, arguments: ["--payment-timeout", "1"]) { shop, _ in
            let erin = try shop.customer("erin")
            let order = try shop.checkout(erin, quantity: 4)
            let orderID = try #require(order["id"] as? String)
            #expect(try shop.stock() == 6)
            await eventually { (try? Shop.status(shop.order(orderID, token: erin))) == "cancelled" }
            let expired = try shop.order(orderID, token: erin)
            #expect(Shop.status(expired) == "cancelled")
            #expect(Shop.paymentStatus(expired) == "expired")
            // The stock comes back in its own write just after the order's
            // cancel (CheckoutPayments.converge), so it may trail by a moment.
            await eventually { (try? shop.stock()) == 10 }
            #expect(try shop.stock() == 10)
            // The sweep logs after its whole round (expiry, then any open
            // payment), so the line may follow the order's change by a moment.
            await eventually { shop.server.log.contains { $0.contains(#""event":"payments_expired""#) } }
            #expect(shop.server.log.contains { $0.contains(#""event":"payments_expired""#) })
        }
    }

    /// 20 deliveries of one event at once: one effect. A decline holds the
    /// stock, a success is applied once. Oversell stays 0 with orders
    /// cancelled between checkouts.
    @Test func concurrentDeliveriesOfOneEventHaveOneEffectAndNothingIsOversold() async throws {
        try await Shop.run(stock: 4) { shop, _ in
            let port = shop.server.port
            var buyers: [String] = []
            for index in 0..<8 { buyers.append(try shop.customer("buyer\(index)")) }
            for buyer in buyers {
                #expect(try shop.api.call("PUT", "/cart/items/\(shop.productID)", json: #"{"quantity":1}"#, token: buyer).status == 200)
            }
            func checkoutAll(_ tokens: [String]) async throws -> [[String: Any]] {
                let bodies = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                    for token in tokens {
                        group.addTask {
                            let answer = try Shop.API(port: port).call("POST", "/checkout", token: token)
                            return answer.status == 201 ? answer.body : nil
                        }
                    }
                    return try await group.reduce(into: [[UInt8]]()) { if let body = $1 { $0.append(body) } }
                }
                return bodies.compactMap { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] }
            }
            let first = try await checkoutAll(Array(buyers.prefix(6)))
            #expect(first.count == 4)
            #expect(try shop.stock() == 0)

            let failure = try shop.sign(first[0], type: "payment.failed", eventID: "evt_fail_once")
            let success = try shop.sign(first[1], eventID: "evt_pay_once")
            let outcomes = try await withThrowingTaskGroup(of: (String, Int, String?).self) { group in
                for delivery in Array(repeating: failure, count: 20) + Array(repeating: success, count: 20) {
                    group.addTask {
                        let answer = try Shop.API(port: port).call("POST", "/payments/webhook", json: delivery.body,
                                                                   headers: ["Axiom-Signature": delivery.signature])
                        return (delivery.body, answer.status, shop.api.object(answer)["outcome"] as? String)
                    }
                }
                return try await group.reduce(into: [(String, Int, String?)]()) { $0.append($1) }
            }
            #expect(outcomes.allSatisfy { $0.1 == 200 })
            #expect(outcomes.filter { $0.0 == failure.body && $0.2 == "unchanged" }.count == 1)
            #expect(outcomes.filter { $0.0 == success.body && $0.2 == "applied" }.count == 1)
            #expect(try shop.stock() == 0)
            #expect(Shop.status(try shop.order(try #require(first[1]["id"] as? String), token: shop.admin)) == "confirmed")
            let declinedID = try #require(first[0]["id"] as? String)
            #expect(Shop.status(try shop.order(declinedID, token: shop.admin)) == "pending")
            #expect(try shop.api.call("PATCH", "/orders/\(declinedID)", json: #"{"status":"cancelled"}"#,
                                      token: shop.admin).status == 200)
            #expect(try shop.stock() == 1)  // one kettle back, once

            // The rest race for the one kettle that came back.
            let second = try await checkoutAll(Array(buyers.suffix(2)))
            #expect(second.count == 1)
            #expect(try shop.stock() == 0)
        }
    }

    @Test func withoutASecretTheWebhookIsUnavailableAndStartUpWarns() throws {
        try Shop.run(stock: 1, secret: nil) { shop, _ in
            let answer = try shop.post(#"{"id":"evt_1","type":"payment.succeeded"}"#, signature: "t=1,v1=00")
            #expect(answer.status == 503)
            #expect(Shop.code(shop.api, answer) == "payments_not_configured")
            #expect(shop.server.log.contains { $0.contains(#""event":"payments_not_configured""#) })
        }
    }
}

import Foundation
import Testing
import TestSupport

/// Provider data is input: a signed refund or chargeback for more than was
/// paid, through the real binary. Before, one near Int64.max on an open
/// payment trapped the process (`refundOwed` overflowed) on every delivery,
/// and on a paid payment was applied: refunded 9.2 × 10^18 of 4,000.
@Suite struct PaymentAnomalyFlowTests {
    typealias Shop = PaymentShop
    static let huge = 9_223_372_036_854_775_000

    private func payment(_ object: [String: Any]) -> [String: Any] { object["payment"] as? [String: Any] ?? [:] }
    private func minor(_ object: [String: Any], _ key: String) -> Int? {
        (payment(object)[key] as? [String: Any])?["amount"] as? Int
    }

    @Test func refundsAndChargebacksBeyondWhatWasPaidAreKeptNotAppliedAndNeverStopTheServer() throws {
        try Shop.run(stock: 10) { shop, api in
            let (erin, open, openID) = try shop.customerWithOrder("erin")
            let refund = try shop.sign(open, type: "refund.succeeded", eventID: "evt_huge_refund", amount: Self.huge)
            // The same delivery twice, as a provider retries: kept once.
            let first = try shop.deliver(refund)
            #expect(first.status == 200)
            #expect(api.object(first)["outcome"] as? String == "anomaly")
            let again = try shop.deliver(refund)
            #expect(again.status == 200)
            #expect(api.object(again)["outcome"] as? String == "duplicate")
            #expect(try api.call("GET", "/health").status == 200)
            let untouched = try shop.order(openID, token: erin)
            #expect(Shop.status(untouched) == "pending")
            #expect(minor(untouched, "refunded") == 0 && minor(untouched, "refund_owed") == 0)

            let paid = try shop.checkout(erin)
            let paidID = try #require(paid["id"] as? String)
            #expect(try shop.deliver(try shop.sign(paid)).status == 200)
            let chargeback = try shop.deliver(try shop.sign(paid, type: "chargeback.created", amount: Self.huge))
            #expect(chargeback.status == 200)
            #expect(api.object(chargeback)["outcome"] as? String == "anomaly")
            let kept = try shop.order(paidID, token: erin)
            #expect(Shop.status(kept) == "confirmed")
            #expect(minor(kept, "paid") == 4000 && minor(kept, "refunded") == 0)
            #expect(payment(kept)["financial_status"] as? String == "paid")
            // A refund of what was paid, less one cent, still applies.
            let partial = try shop.deliver(try shop.sign(paid, type: "refund.succeeded", amount: 3999))
            #expect(api.object(partial)["outcome"] as? String == "applied")
            #expect(minor(try shop.order(paidID, token: erin), "refunded") == 3999)
            let ledger = api.object(try api.call("GET", "/orders/\(paidID)/ledger", token: shop.admin))["items"]
                as? [[String: Any]] ?? []
            #expect(ledger.map { $0["kind"] as? String } == ["charge", "refund"])

            let listed = try api.call("GET", "/payments/anomalies?held=true", token: shop.admin)
            #expect(listed.status == 200)
            let items = api.object(listed)["items"] as? [[String: Any]] ?? []
            #expect(items.map { $0["order_id"] as? String } == [openID, paidID])
            #expect(items.map { $0["kind"] as? String } == ["refund", "chargeback"])
            #expect(items.allSatisfy { $0["reason"] as? String == "exceeds_paid" && $0["applied_at"] is NSNull })
            #expect(items.map { ($0["amount"] as? [String: Any])?["amount"] as? Int } == [Self.huge, Self.huge])
            #expect(items.map { ($0["refundable"] as? [String: Any])?["amount"] as? Int } == [0, 4000])
            #expect(try api.call("GET", "/payments/anomalies", token: erin).status == 403)
            let badQuery = try api.call("GET", "/payments/anomalies?held=maybe", token: shop.admin)
            #expect(badQuery.status == 422)
            let metrics = String(decoding: try api.call("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("\naxiom_payment_anomalies_total 2\n"))
        }
    }

    /// Before: `{"status":"succeeded","amount":1}` on a 4,000-cent order
    /// made the payment succeeded and the order confirmed and shippable.
    @Test func aPartialManualPaymentLeavesTheOrderPendingUntilThePaymentsCoverIt() throws {
        try Shop.run(stock: 10) { shop, api in
            let finn = try shop.customer("finn")
            let order = try shop.checkout(finn, body: #"{"payment_method":"bank_transfer","shipping_address":\#(Shop.address)}"#)
            let orderID = try #require(order["id"] as? String)
            let first = try api.call("POST", "/orders/\(orderID)/payment",
                                     json: #"{"status":"succeeded","reference":"TR-1","amount":1}"#, token: shop.admin)
            #expect(first.status == 200)
            #expect(Shop.status(api.object(first)) == "pending")
            #expect(Shop.paymentStatus(api.object(first)) == "requires_payment")
            #expect(minor(api.object(first), "amount_due") == 3999)
            #expect(minor(api.object(first), "paid") == 1)
            let ship = try api.call("PATCH", "/orders/\(orderID)", json: #"{"status":"shipped"}"#, token: shop.admin)
            #expect(ship.status == 409)
            // What came in and went back again does not count towards the total.
            let returned = try api.call("POST", "/orders/\(orderID)/refunds", json: #"{"amount":1,"reference":"RF-1"}"#,
                                        token: shop.admin)
            #expect(minor(api.object(returned), "amount_due") == 4000)
            let short = try api.call("POST", "/orders/\(orderID)/payment",
                                     json: #"{"status":"succeeded","reference":"TR-2","amount":3999}"#, token: shop.admin)
            #expect(Shop.status(api.object(short)) == "pending")
            #expect(minor(api.object(short), "amount_due") == 1)
            // Without an amount, the rest is recorded: paid in full, nothing owed back.
            let rest = try api.call("POST", "/orders/\(orderID)/payment",
                                    json: #"{"status":"succeeded","reference":"TR-3"}"#, token: shop.admin)
            #expect(Shop.status(api.object(rest)) == "confirmed")
            #expect(Shop.paymentStatus(api.object(rest)) == "succeeded")
            #expect(minor(api.object(rest), "amount_due") == 0 && minor(api.object(rest), "refund_owed") == 0)
            #expect(payment(api.object(rest))["financial_status"] as? String == "partially_refunded")
            #expect(try api.call("PATCH", "/orders/\(orderID)", json: #"{"status":"shipped"}"#, token: shop.admin).status
                    == 200)
        }
    }
}

import Foundation
import Testing
import TestSupport

/// `GET /orders/{id}/history` over real HTTP against the real binary: every
/// status change of an order with its time, its actor (the customer, an
/// admin by id, the provider, the system) and its reason, readable by the
/// order's customer and by admins, by nobody else.
@Suite struct OrderHistoryFlowTests {
    typealias Shop = PaymentShop

    @Test func aPaidShippedDeliveredOrderShowsWhoMovedItAndWhy() throws {
        try Shop.run(stock: 10) { shop, api in
            let buyer = try shop.customer("historian"), stranger = try shop.customer("nosy")
            let buyerID = try api.userID(buyer)
            let adminID = try shop.adminID()
            let placed = try shop.checkout(buyer, body: Shop.addressedCheckout)
            let id = try #require(placed["id"] as? String)
            // A decline changes no status, so it adds nothing.
            #expect(try shop.deliver(try shop.sign(placed, type: "payment.failed")).status == 200)
            #expect(try shop.deliver(try shop.sign(placed)).status == 200)
            #expect(try api.call("PATCH", "/orders/\(id)", json: #"{"status":"shipped"}"#, token: shop.admin).status == 200)
            #expect(try api.call("PATCH", "/orders/\(id)", json: #"{"status":"delivered"}"#, token: shop.admin).status == 200)
            // A refused move leaves no row either.
            #expect(try api.call("POST", "/orders/\(id)/cancel", token: buyer).status == 409)

            let expected: [[String?]] = [
                [nil, "pending", "customer", buyerID, "checkout"],
                ["pending", "confirmed", "provider", nil, "payment.succeeded"],
                ["confirmed", "shipped", "admin", adminID, "shipped"],
                ["shipped", "delivered", "admin", adminID, "status_set_by_admin"],
            ]
            for token in [buyer, shop.admin] {
                let items = try Self.history(api, id, token: token)
                #expect(items.map(Self.row) == expected)
                let times = items.compactMap { $0["at"] as? String }
                #expect(times.count == 4 && times == times.sorted())
                #expect(times.first == placed["created_at"] as? String)
            }
            #expect(try api.call("GET", "/orders/\(id)/history", token: stranger).status == 404)
            #expect(try api.call("GET", "/orders/\(id)/history").status == 401)
            #expect(try api.call("GET", "/orders/\(id)/history?limit=2", token: buyer).status == 422)
        }
    }

    @Test func aBankTransferRecordedByAnAdminThenCancelledByTheCustomer() throws {
        try Shop.run(stock: 10) { shop, api in
            let buyer = try shop.customer("transfer")
            let buyerID = try api.userID(buyer)
            let adminID = try shop.adminID()
            let placed = try shop.checkout(buyer, body: #"{"payment_method":"bank_transfer"}"#)
            let id = try #require(placed["id"] as? String)
            #expect(try api.call("POST", "/orders/\(id)/payment", json: #"{"status":"succeeded","reference":"SEPA-1"}"#,
                                 token: shop.admin).status == 200)
            #expect(try api.call("POST", "/orders/\(id)/cancel", token: buyer).status == 200)
            #expect(try Self.history(api, id, token: shop.admin).map(Self.row) == [
                [nil, "pending", "customer", buyerID, "checkout"],
                ["pending", "confirmed", "admin", adminID, "manual_payment"],
                ["confirmed", "cancelled", "customer", buyerID, "cancel_requested"],
            ])
            try MoneyInvariants.check(shop, orders: [id])
        }
    }

    @Test func anUnpaidOrderExpiresBySystem() async throws {
        try await Shop.run(stock: 10, arguments: ["--payment-timeout", "1"]) { shop, _ in
            let buyer = try shop.customer("late")
            let id = try #require(try shop.checkout(buyer)["id"] as? String)
            await eventually { (try? Shop.status(shop.order(id, token: buyer))) == "cancelled" }
            let rows = try Self.history(shop.api, id, token: buyer).map(Self.row)
            #expect(rows.last == ["pending", "cancelled", "system", nil, "payment_expired"])
            #expect(rows.count == 2)
        }
    }

    static func history(_ api: Shop.API, _ id: String, token: String) throws -> [[String: Any]] {
        let answer = try api.call("GET", "/orders/\(id)/history", token: token)
        #expect(answer.status == 200)
        return api.object(answer)["items"] as? [[String: Any]] ?? []
    }

    /// from, status, actor, actor_id, reason (null as nil).
    static func row(_ item: [String: Any]) -> [String?] {
        ["from", "status", "actor", "actor_id", "reason"].map { item[$0] as? String }
    }
}

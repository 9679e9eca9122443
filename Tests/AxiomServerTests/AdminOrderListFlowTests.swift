import Foundation
import Testing
import TestSupport

/// `GET /admin/orders` over real HTTP against the real binary: every
/// customer's orders, newest first, filtered by status, payment state,
/// refund owed, customer and creation time, keyset paged without gaps or
/// repeats; admins only.
@Suite struct AdminOrderListFlowTests {
    @Test func filtersAndPagesEveryCustomersOrders() throws {
        try PaymentShop.run(stock: 100) { shop, api in
            let ana = try shop.customer("ana"), ben = try shop.customer("ben")
            let benID = try api.userID(ben)
            // ana: one unpaid, one paid; ben: one paid, one paid then cancelled (owed back), one unpaid.
            var ids: [String] = []
            var placed: [[String: Any]] = []
            for token in [ana, ana, ben, ben, ben] {
                let order = try shop.checkout(token)
                placed.append(order)
                ids.append(try #require(order["id"] as? String))
            }
            let start = try #require(placed.first?["created_at"] as? String)
            for index in [1, 2, 3] { #expect(try shop.deliver(try shop.sign(placed[index])).status == 200) }
            #expect(try api.call("POST", "/orders/\(ids[3])/cancel", token: ben).status == 200)
            let newestFirst = Array(ids.reversed())

            #expect(try Self.ids(shop, "") == newestFirst)
            #expect(try Self.ids(shop, "customer=\(benID)") == [ids[4], ids[3], ids[2]])
            #expect(try Self.ids(shop, "status=confirmed") == [ids[2], ids[1]])
            #expect(try Self.ids(shop, "status=pending&customer=\(benID)") == [ids[4]])
            #expect(try Self.ids(shop, "financial_status=paid") == [ids[3], ids[2], ids[1]])
            #expect(try Self.ids(shop, "financial_status=unpaid") == [ids[4], ids[0]])
            #expect(try Self.ids(shop, "refund_owed=true") == [ids[3]])
            #expect(try Self.ids(shop, "refund_owed=false&customer=\(benID)") == [ids[4], ids[2]])
            #expect(try Self.ids(shop, "from=\(start)") == newestFirst)
            #expect(try Self.ids(shop, "to=\(start)").isEmpty)
            #expect(try Self.ids(shop, "from=2000-01-01T00:00:00Z&to=2001-01-01T00:00:00Z").isEmpty)
            // Each order with its payment.
            let owed = try #require((api.object(try api.call("GET", "/admin/orders?refund_owed=true", token: shop.admin))["items"]
                                     as? [[String: Any]])?.first)
            #expect(PaymentShop.paymentStatus(owed) == "refund_pending")

            // Pages of 2 (and of 1 with a payment filter) cover the list once, in order.
            #expect(try Self.pagedIDs(shop, "limit=2") == newestFirst)
            #expect(try Self.pagedIDs(shop, "limit=1&financial_status=paid") == [ids[3], ids[2], ids[1]])

            // Admins only; bad parameters are named, each of them.
            #expect(try api.call("GET", "/admin/orders", token: ana).status == 403)
            #expect(try api.call("GET", "/admin/orders").status == 401)
            let bad = try api.call("GET", "/admin/orders?status=lost&financial_status=rich&refund_owed=maybe&customer=x&from=today",
                                   token: shop.admin)
            #expect(bad.status == 422)
            let fields = (api.object(bad)["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(Set(fields ?? []) == ["status", "financial_status", "refund_owed", "customer", "from"])
            #expect(try api.call("GET", "/admin/orders?cursor=\(UUID().uuidString.lowercased())", token: shop.admin).status == 422)
            #expect(try api.call("GET", "/admin/orders?sort=id", token: shop.admin).status == 422)
        }
    }

    static func ids(_ shop: PaymentShop, _ query: String) throws -> [String] {
        let answer = try shop.api.call("GET", "/admin/orders?\(query)", token: shop.admin)
        #expect(answer.status == 200, "\(query)")
        let items = shop.api.object(answer)["items"] as? [[String: Any]] ?? []
        return items.compactMap { $0["id"] as? String }
    }

    /// Follows `next_cursor` to the end.
    static func pagedIDs(_ shop: PaymentShop, _ query: String) throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        for _ in 0..<20 {
            let answer = try shop.api.call("GET", "/admin/orders?\(query)" + (cursor.map { "&cursor=\($0)" } ?? ""),
                                           token: shop.admin)
            #expect(answer.status == 200)
            let object = shop.api.object(answer)
            ids += (object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            cursor = object["next_cursor"] as? String
            if cursor == nil { break }
        }
        return ids
    }
}

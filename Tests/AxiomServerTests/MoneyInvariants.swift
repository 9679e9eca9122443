import Foundation
import Testing
import TestSupport

/// The money invariants, read over HTTP as an admin: for every order, its
/// ledger's sums are its payment's `paid` and `refunded`, the admin's
/// refunds never exceed what was paid (a provider's may, flagged), and
/// the refunds owed are what the payment says.
enum MoneyInvariants {
    typealias Shop = PaymentShop

    static func check(_ shop: Shop, orders: [String]) throws {
        for id in orders {
            let order = shop.api.object(try shop.api.call("GET", "/orders/\(id)", token: shop.admin))
            let payment = try #require(order["payment"] as? [String: Any], "\(id)")
            var paid = 0, refunded = 0, manuallyRefunded = 0
            for entry in try ledger(shop, order: id) {
                let amount = try #require((entry["amount"] as? [String: Any])?["amount"] as? Int)
                switch entry["kind"] as? String {
                case "charge", "manual_payment": paid += amount
                case "manual_refund": refunded += amount; manuallyRefunded += amount
                default: refunded += amount
                }
            }
            #expect(PaymentLedgerFlowTests.minor(payment["paid"]) == paid, "\(id)")
            #expect(PaymentLedgerFlowTests.minor(payment["refunded"]) == refunded, "\(id)")
            #expect(manuallyRefunded <= paid, "\(id)")
            let kept = ["cancelled", "expired", "refund_pending", "refunded", "failed"]
                .contains(payment["status"] as? String ?? "") ? 0 : (payment["amount"] as? [String: Any])?["amount"] as? Int ?? 0
            #expect(PaymentLedgerFlowTests.minor(payment["refund_owed"]) == max(0, paid - refunded - kept), "\(id)")
        }
    }

    /// The order's ledger entries, oldest first.
    static func ledger(_ shop: Shop, order id: String) throws -> [[String: Any]] {
        let answer = try shop.api.call("GET", "/orders/\(id)/ledger", token: shop.admin)
        #expect(answer.status == 200)
        return shop.api.object(answer)["items"] as? [[String: Any]] ?? []
    }

    /// Every ledger entry recorded in `[from, to)`, read `limit` at a time
    /// through `GET /payments/ledger`'s keyset pages.
    static func entries(_ shop: Shop, query: String = "", limit: Int = 1) throws -> [[String: Any]] {
        var entries: [[String: Any]] = [], cursor: String?
        repeat {
            let path = "/payments/ledger?limit=\(limit)\(query)" + (cursor.map { "&cursor=\($0)" } ?? "")
            let answer = try shop.api.call("GET", path, token: shop.admin)
            #expect(answer.status == 200)
            let page = shop.api.object(answer)
            entries += page["items"] as? [[String: Any]] ?? []
            cursor = page["next_cursor"] as? String
        } while cursor != nil
        return entries
    }

    /// Every payment owing money back, by order id: the whole list, page by page.
    static func owed(_ shop: Shop) throws -> [String: Int] {
        var owed: [String: Int] = [:], cursor: String?
        repeat {
            let path = "/payments/refunds-owed?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = shop.api.object(try shop.api.call("GET", path, token: shop.admin))
            for payment in page["items"] as? [[String: Any]] ?? [] {
                owed[payment["order_id"] as? String ?? ""] = PaymentLedgerFlowTests.minor(payment["refund_owed"])
            }
            cursor = page["next_cursor"] as? String
        } while cursor != nil
        return owed
    }
}

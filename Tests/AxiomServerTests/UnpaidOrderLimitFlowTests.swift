import Foundation
import Testing
import TestSupport

/// Before: one customer's three bank-transfer checkouts (99 + 99 + 2 units)
/// held a product's whole stock for the 7 days their payments wait, and
/// every other buyer got `insufficient_stock`.
@Suite struct UnpaidOrderLimitFlowTests {
    typealias Shop = PaymentShop
    static let transfer = #"{"payment_method":"bank_transfer"}"#

    private func checkout(_ shop: Shop, _ token: String, quantity: Int) throws -> RawClient.Response {
        #expect(try shop.api.call("PUT", "/cart/items/\(shop.productID)", json: #"{"quantity":\#(quantity)}"#,
                                  token: token).status == 200)
        return try shop.api.call("POST", "/checkout", json: Self.transfer, token: token)
    }

    @Test func oneCustomersUnpaidOrdersHoldAtMostTheUnitsBoundAndOthersStillBuy() throws {
        try Shop.run(stock: 200) { shop, _ in
            let hoarder = try shop.customer("hoarder")
            #expect(try checkout(shop, hoarder, quantity: 99).status == 201)
            let second = try checkout(shop, hoarder, quantity: 99)
            #expect(second.status == 409)
            #expect(Shop.code(shop.api, second) == "too_many_unpaid_units")
            // The refused checkout left nothing behind: its stock is back, the cart as it was.
            #expect(try shop.stock() == 101)
            let cart = shop.api.object(try shop.api.call("GET", "/cart", token: hoarder))
            #expect((cart["items"] as? [[String: Any]])?.first?["quantity"] as? Int == 99)
            let buyer = try shop.customer("buyer")
            #expect(try checkout(shop, buyer, quantity: 50).status == 201)
            #expect(try shop.stock() == 51)
        }
    }

    @Test func aCustomerWithTheBoundOfUnpaidOrdersPaysOneBeforeTheNext() throws {
        try Shop.run(stock: 50, arguments: ["--unpaid-orders-per-customer", "2"]) { shop, api in
            let gia = try shop.customer("gia")
            let first = try checkout(shop, gia, quantity: 1)
            #expect(try checkout(shop, gia, quantity: 1).status == 201)
            let third = try checkout(shop, gia, quantity: 1)
            #expect(third.status == 409)
            #expect(Shop.code(api, third) == "too_many_unpaid_orders")
            #expect(try shop.stock() == 48)
            let firstID = try #require(api.object(first)["id"] as? String)
            #expect(try api.call("POST", "/orders/\(firstID)/payment", json: #"{"status":"succeeded","reference":"TR-1"}"#,
                                 token: shop.admin).status == 200)
            #expect(try api.call("POST", "/checkout", json: Self.transfer, token: gia).status == 201)
            #expect(try shop.stock() == 47)
        }
    }
}

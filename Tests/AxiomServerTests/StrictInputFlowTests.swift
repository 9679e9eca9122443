import Foundation
import Testing
import TestSupport

/// Strict input over real HTTP against the real binary, as Stripe does it:
/// a member a body does not take is 422 naming it (it was dropped and the
/// request answered 2xx as if understood), an enumeration's wrong value
/// lists the accepted ones, messages say money in major units.
@Suite struct StrictInputFlowTests {
    typealias Shop = PaymentShop

    @Test func unknownMembersAreRefusedNamingThemAndNothingChanges() throws {
        try Shop.run(stock: 10) { shop, api in
            let buyer = try shop.customer("strict")

            // A misspelt payment method checked out a provider order before.
            #expect(try api.call("PUT", "/cart/items/\(shop.productID)", json: #"{"quantity":1}"#, token: buyer).status == 200)
            let misspelt = try api.call("POST", "/checkout", json: #"{"payment_metod":"bank_transfer"}"#, token: buyer)
            #expect(misspelt.status == 422)
            #expect(Shop.fields(api, misspelt).map { $0["field"] } == ["payment_metod"])
            #expect(Shop.fields(api, misspelt).first?["code"] == "unknown_field")
            #expect(try shop.stock() == 10)

            // Registration and the profile do not take a role.
            let register = try api.call("POST", "/users", json:
                #"{"name":"Mallory","email":"mallory@example.com","password":"\#(Shop.password)","role":"admin"}"#)
            #expect(register.status == 422)
            #expect(Shop.fields(api, register).map { $0["field"] } == ["role"])
            #expect(try api.call("POST", "/sessions", json: #"{"email":"mallory@example.com","password":"\#(Shop.password)"}"#)
                .status == 401)
            let patch = try api.call("PATCH", "/users/me", json: #"{"name":"Strict","role":"admin"}"#, token: buyer)
            #expect(patch.status == 422)
            #expect(Shop.fields(api, patch).map { $0["field"] } == ["role"])
            #expect(api.object(try api.call("GET", "/users/me", token: buyer))["role"] as? String == "customer")

            // Nested: a member an address does not have.
            let nested = try api.call("POST", "/checkout", json:
                #"{"shipping_address":{"name":"Ana","lines":["x"],"city":"c","postal_code":"1","country":"DE","phone":"+4930123456","floor":3}}"#,
                token: buyer)
            #expect(nested.status == 422)
            #expect(Shop.fields(api, nested).map { $0["field"] } == ["shipping_address.floor"])

            // A misspelt query parameter of a list listed everything before.
            let products = try api.call("GET", "/products?limt=1")
            #expect(products.status == 422)
            #expect(Shop.fields(api, products).map { $0["field"] } == ["limt"])
            let orders = try api.call("GET", "/orders?limit=5&cursr=x", token: buyer)
            #expect(orders.status == 422)
            #expect(Shop.fields(api, orders).map { $0["field"] } == ["cursr"])
            #expect(try api.call("GET", "/users?page=2", token: shop.admin).status == 422)
            #expect(try api.call("GET", "/products?q=kettle&limit=5").status == 200)

            // The cart's fast path and its full decoder agree.
            let extra = try api.call("PUT", "/cart/items/\(shop.productID)", json: #"{"quantity":2,"gift":true}"#, token: buyer)
            #expect(extra.status == 422)
            #expect(Shop.fields(api, extra).map { $0["field"] } == ["gift"])

            // A provider's event may carry members this server does not read.
            let order = try shop.checkout(buyer)
            let payment = try #require(order["payment"] as? [String: Any])
            let paymentID = try #require(payment["id"] as? String)
            let event = #"{"id":"evt_extra","type":"payment.succeeded","livemode":false,"data":{"payment_id":"\#(paymentID)","amount":{"amount":4000,"currency":"USD"},"object":"charge"}}"#
            #expect(try shop.deliver(try shop.sign(body: event)).status == 200)
        }
    }

    @Test func enumerationErrorsListTheValuesAndMoneyIsSaidInMajorUnits() throws {
        try Shop.run(stock: 10) { shop, api in
            let buyer = try shop.customer("cash", carting: 1)
            let cash = try api.call("POST", "/checkout", json: #"{"payment_method":"cash"}"#, token: buyer)
            #expect(cash.status == 422)
            #expect(Shop.fields(api, cash) == [["field": "payment_method", "code": "invalid_format",
                                                 "message": "payment_method must be one of: provider, bank_transfer"]])
            let order = try shop.checkout(buyer)
            let id = try #require(order["id"] as? String)
            let status = try api.call("PATCH", "/orders/\(id)", json: #"{"status":"lost"}"#, token: shop.admin)
            #expect(status.status == 422)
            #expect(Shop.fields(api, status).first?["message"]
                == "status must be one of: pending, confirmed, shipped, delivered, cancelled")

            #expect(try shop.deliver(try shop.sign(order)).status == 200)
            let refund = try api.call("POST", "/orders/\(id)/refunds", json: #"{"amount":4001,"reference":"re_over"}"#,
                                      token: shop.admin)
            #expect(refund.status == 422)
            let detail = try #require(api.object(refund)["detail"] as? String)
            #expect(detail.hasSuffix("has 40.00 USD left to refund"), "\(detail)")
        }
    }
}

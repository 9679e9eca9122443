import Foundation
import Testing
import TestSupport

/// Orders a shop can ship, over real HTTP against the real binary: a
/// shipping address given at checkout (validated field by field, stored
/// with the order, shown in its JSON), or added later by the customer or
/// an admin; an order without one is paid but not shipped.
@Suite struct ShippingFlowTests {
    typealias Shop = PaymentShop

    @Test func anAddressGivenAtCheckoutIsStoredShownAndShipped() throws {
        try Shop.run(stock: 10) { shop, api in
            let buyer = try shop.customer("addressed")
            let placed = try shop.checkout(buyer, body: Shop.addressedCheckout)
            let id = try #require(placed["id"] as? String)
            let expected = try Self.object(Shop.address)
            #expect(Self.address(placed) == expected)
            #expect(Self.address(try shop.order(id, token: buyer)) == expected)
            let listed = try #require((api.object(try api.call("GET", "/orders", token: buyer))["items"] as? [[String: Any]])?.first)
            #expect(Self.address(listed) == expected)
            #expect(try shop.deliver(try shop.sign(placed)).status == 200)
            let shipped = try api.call("PATCH", "/orders/\(id)", json: #"{"status":"shipped"}"#, token: shop.admin)
            #expect(shipped.status == 200)
            #expect(Self.address(api.object(shipped)) == expected)
            // Once the parcel left, the address is history: neither the
            // customer nor an admin changes it.
            for token in [buyer, shop.admin] {
                let late = try api.call("PUT", "/orders/\(id)/shipping_address", json: Self.otherAddress, token: token)
                #expect(late.status == 409)
                #expect(Shop.code(api, late) == "shipping_address_locked")
            }
            #expect(Self.address(try shop.order(id, token: buyer)) == expected)
        }
    }

    @Test func anOrderWithoutAnAddressIsPaidButShipsOnlyOnceOneIsGiven() throws {
        try Shop.run(stock: 10) { shop, api in
            let buyer = try shop.customer("later"), stranger = try shop.customer("stranger")
            let placed = try shop.checkout(buyer)
            let id = try #require(placed["id"] as? String)
            #expect(placed["shipping_address"] == nil)
            #expect(try shop.deliver(try shop.sign(placed)).status == 200)
            let refused = try api.call("PATCH", "/orders/\(id)", json: #"{"status":"shipped"}"#, token: shop.admin)
            #expect(refused.status == 409)
            #expect(Shop.code(api, refused) == "shipping_address_required")
            let unshipped = try shop.order(id, token: buyer)
            #expect(Shop.status(unshipped) == "confirmed")
            #expect(Shop.paymentStatus(unshipped) == "succeeded")

            // Someone else's order is not found; a bad address names its fields.
            let foreign = try api.call("PUT", "/orders/\(id)/shipping_address", json: Shop.address, token: stranger)
            #expect(foreign.status == 404)
            let bad = try api.call("PUT", "/orders/\(id)/shipping_address",
                                   json: #"{"name":"Ana","lines":[],"city":"Madrid","postal_code":"-28","country":"es"}"#,
                                   token: buyer)
            #expect(bad.status == 422)
            #expect(Shop.code(api, bad) == "validation_failed")
            #expect(Set(Self.fields(api, bad)) == ["lines", "postal_code", "country", "phone"])
            #expect(try shop.order(id, token: buyer)["shipping_address"] == nil)

            let given = try api.call("PUT", "/orders/\(id)/shipping_address", json: Shop.address, token: buyer)
            #expect(given.status == 200)
            #expect(Self.address(api.object(given)) == (try Self.object(Shop.address)))
            // An admin corrects it; the order keeps the last one.
            let corrected = try api.call("PUT", "/orders/\(id)/shipping_address", json: Self.otherAddress, token: shop.admin)
            #expect(corrected.status == 200)
            #expect(Self.address(try shop.order(id, token: buyer)) == (try Self.object(Self.otherAddress)))
            let shipped = try api.call("PATCH", "/orders/\(id)", json: #"{"status":"shipped"}"#, token: shop.admin)
            #expect(shipped.status == 200)
            #expect(Shop.status(api.object(shipped)) == "shipped")
            try MoneyInvariants.check(shop, orders: [id])
        }
    }

    @Test func aCancelledOrderTakesNoAddress() throws {
        try Shop.run(stock: 10) { shop, api in
            let buyer = try shop.customer("cancelled")
            let id = try #require(try shop.checkout(buyer)["id"] as? String)
            #expect(try api.call("POST", "/orders/\(id)/cancel", token: buyer).status == 200)
            let late = try api.call("PUT", "/orders/\(id)/shipping_address", json: Shop.address, token: buyer)
            #expect(late.status == 409)
            #expect(Shop.code(api, late) == "shipping_address_locked")
        }
    }

    @Test func aBadAddressAtCheckoutIsRefusedFieldByFieldAndNothingIsOrdered() throws {
        try Shop.run(stock: 10) { shop, api in
            let buyer = try shop.customer("typo", carting: 2)
            let cases: [(String, Set<String>)] = [
                (#"{"name":" ","lines":["a","b","c","d"],"city":"","postal_code":"28013","country":"XX","phone":"0049 30","email":"x"}"#,
                 ["shipping_address.name", "shipping_address.lines", "shipping_address.city", "shipping_address.country",
                  "shipping_address.phone", "shipping_address.email"]),
                (#"{"name":"Ana","lines":["Calle 1"],"city":"Madrid","postal_code":"28013","country":"ES"}"#,
                 ["shipping_address.phone"]),
                (#"{"name":"Ana","lines":["Calle 1"],"postal_code":"28013","country":"ES","email":"ana@example.com"}"#,
                 ["shipping_address.city"]),
            ]
            for (address, fields) in cases {
                let refused = try api.call("POST", "/checkout", json: #"{"shipping_address":\#(address)}"#, token: buyer)
                #expect(refused.status == 422, "\(address)")
                #expect(Shop.code(api, refused) == "validation_failed")
                #expect(Set(Self.fields(api, refused)) == fields, "\(address)")
            }
            #expect(try shop.stock() == 10)
            #expect((api.object(try api.call("GET", "/orders", token: buyer))["items"] as? [Any])?.isEmpty == true)
            #expect((api.object(try api.call("GET", "/cart", token: buyer))["items"] as? [Any])?.count == 1)
            // An email alone is a contact too.
            let placed = try api.call("POST", "/checkout", json: #"{"shipping_address":\#(cases[2].0.replacingOccurrences(of: #""postal_code""#, with: #""city":"Madrid","postal_code""#))}"#, token: buyer)
            #expect(placed.status == 201)
            #expect(Self.address(api.object(placed))?["email"] as? String == "ana@example.com")
        }
    }

    static let otherAddress = #"{"name":"Ben Okafor","lines":["12 Harbour Road"],"city":"Cork","postal_code":"T12 X2Y3","country":"IE","email":"ben@example.com"}"#

    static func object(_ json: String) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
    }

    static func address(_ order: [String: Any]) -> NSDictionary? { order["shipping_address"] as? NSDictionary }

    static func fields(_ api: PaymentShop.API, _ response: RawClient.Response) -> [String] {
        (api.object(response)["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String } ?? []
    }
}

import Foundation
import Testing
import TestSupport

/// A deactivated product against the real binary: a shopper reaches it
/// nowhere (the same 404 as `GET /products/{id}` from the cart and the
/// wishlist, no name or price in either view), and a checkout holding it
/// is refused.
@Suite struct InactiveProductFlowTests {
    typealias API = AccountFlowTests.API

    static func code(_ api: API, _ response: RawClient.Response) -> String? {
        api.object(response)["code"] as? String
    }

    static func deactivate(_ shop: EventShop, _ id: String) throws {
        #expect(try shop.api.call("PATCH", "/products/\(id)", json: #"{"active":false}"#, token: shop.admin).status == 200)
    }

    @Test func aDeactivatedProductIsNotFoundForAShopperWhereverTheyReachIt() throws {
        let shop = try EventShop.open(users: 1, sessionsEach: 1)
        defer { shop.server.stop() }
        let (api, alice) = (shop.api, shop.tokens[0][0])
        let hidden = try WishlistFlowTests.product(api, sku: "IN-HIDDEN", stock: 5, admin: shop.admin)
        try Self.deactivate(shop, hidden)

        let page = try api.call("GET", "/products/\(hidden)")
        #expect(page.status == 404 && Self.code(api, page) == "product_not_found")
        let saved = try api.call("PUT", "/wishlist/items/\(hidden)", token: alice)
        #expect(saved.status == 404 && Self.code(api, saved) == Self.code(api, page))
        let added = try api.call("PUT", "/cart/items/\(hidden)", json: #"{"quantity":1}"#, token: alice)
        #expect(added.status == 404 && Self.code(api, added) == Self.code(api, page))
        #expect(WishlistFlowTests.items(try shop.get("/wishlist", token: alice)).isEmpty)
        let cart = try shop.get("/cart", token: alice)
        #expect((cart["items"] as? [Any])?.isEmpty == true && (cart["unavailable_items"] as? [Any])?.isEmpty == true)
    }

    @Test func aLineDeactivatedAfterItWasAddedIsUnavailableWithoutDetailsAndCheckoutRefusesIt() throws {
        let shop = try EventShop.open(users: 1, sessionsEach: 1)
        defer { shop.server.stop() }
        let (api, alice) = (shop.api, shop.tokens[0][0])
        let lamp = try WishlistFlowTests.product(api, sku: "IN-LAMP", stock: 5, admin: shop.admin)
        #expect(try api.call("PUT", "/wishlist/items/\(lamp)", token: alice).status == 200)
        #expect(try api.call("PUT", "/cart/items/\(lamp)", json: #"{"quantity":2}"#, token: alice).status == 200)
        try shop.setQuantity(1, token: alice)
        try Self.deactivate(shop, lamp)

        let saved = try #require(WishlistFlowTests.items(try shop.get("/wishlist", token: alice)).first)
        #expect(saved["product_id"] as? String == lamp && saved["availability"] as? String == "unavailable")
        #expect(saved["name"] is NSNull && saved["price"] is NSNull)

        let cart = try shop.get("/cart", token: alice)
        let lines = cart["items"] as? [[String: Any]] ?? []
        #expect(lines.map { $0["product_id"] as? String } == [shop.productID])
        let gone = try #require((cart["unavailable_items"] as? [[String: Any]])?.first)
        #expect(gone["product_id"] as? String == lamp && gone["quantity"] as? Int == 2)
        #expect(gone["reason"] as? String == "inactive" && gone["name"] is NSNull)
        #expect(!String(decoding: try api.call("GET", "/cart", token: alice).body, as: UTF8.self).contains("IN-LAMP"))

        // Changing the line is refused like any unknown product; taking it out works.
        let changed = try api.call("PUT", "/cart/items/\(lamp)", json: #"{"quantity":1}"#, token: alice)
        #expect(changed.status == 404 && Self.code(api, changed) == "product_not_found")
        let refused = try api.call("POST", "/checkout", token: alice)
        #expect(refused.status == 409 && Self.code(api, refused) == "product_inactive")
        #expect((try shop.get("/cart", token: alice)["unavailable_items"] as? [Any])?.count == 1)
        #expect(try api.call("DELETE", "/cart/items/\(lamp)", token: alice).status == 200)
        #expect(try api.call("POST", "/checkout", token: alice).status == 201)
    }
}

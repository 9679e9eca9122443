import Foundation
import Testing
import TestSupport

/// A deactivated product against the real binary: a shopper reaches it
/// nowhere (the same 404 as `GET /products/{id}` from the cart and the
/// wishlist, no name or price in either view), a checkout holding it is
/// refused, and an admin still finds it.
@Suite struct InactiveProductFlowTests {
    typealias API = AccountFlowTests.API

    static func code(_ api: API, _ response: RawClient.Response) -> String? {
        api.object(response)["code"] as? String
    }

    static func deactivate(_ shop: EventShop, _ id: String) throws {
        #expect(try shop.api.call("PATCH", "/products/\(id)", json: #"{"active":false}"#, token: shop.admin).status == 200)
    }

    @Test func aDeactivatedProductIsNotFoundForAShopperWhereverTheyReachIt() throws {
        try EventShop.run(users: 1, sessionsEach: 1) { shop in
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
    }

    @Test func aLineDeactivatedAfterItWasAddedIsUnavailableWithoutDetailsAndCheckoutRefusesIt() throws {
        try EventShop.run(users: 1, sessionsEach: 1) { shop in
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

    @Test func anAdminFetchesAndListsDeactivatedProductsAndAShopperStillGets404() throws {
        try EventShop.run(users: 1, sessionsEach: 1) { shop in
            let (api, admin, alice) = (shop.api, shop.admin, shop.tokens[0][0])
            let hidden = try WishlistFlowTests.product(api, sku: "IN-OLD", stock: 4, admin: admin)
            let other = try WishlistFlowTests.product(api, sku: "IN-NEW", stock: 4, admin: admin)
            try Self.deactivate(shop, hidden)

            let fetched = try api.call("GET", "/admin/products/\(hidden)", token: admin)
            #expect(fetched.status == 200)
            #expect(api.object(fetched)["active"] as? Bool == false && api.object(fetched)["sku"] as? String == "IN-OLD")
            // Its ETag is the one PATCH takes: fetch, then change it back conditionally.
            let etag = try #require(fetched.header("ETag"))
            #expect(try api.call("GET", "/admin/products/\(hidden)", token: admin,
                                 headers: ["If-None-Match": etag]).status == 304)
            let reactivated = try api.call("PATCH", "/products/\(hidden)", json: #"{"active":true}"#, token: admin,
                                           headers: ["If-Match": etag])
            #expect(reactivated.status == 200)
            try Self.deactivate(shop, hidden)

            func skus(_ query: String) throws -> [String] {
                let page = try api.call("GET", "/admin/products\(query)", token: admin)
                #expect(page.status == 200)
                return (api.object(page)["items"] as? [[String: Any]] ?? []).compactMap { $0["sku"] as? String }
            }
            #expect(try skus("?active=false") == ["IN-OLD"])
            // By name: "Item IN-NEW", "Item IN-OLD", "Teapot".
            #expect(try skus("?active=true") == ["IN-NEW", "EV-1"])
            #expect(try skus("") == ["IN-NEW", "IN-OLD", "EV-1"])
            #expect(try skus("?active=false&q=item") == ["IN-OLD"])
            #expect(try skus("?active=true&q=item") == ["IN-NEW"])
            let firstPage = api.object(try api.call("GET", "/admin/products?limit=1", token: admin))
            let cursor = try #require(firstPage["next_cursor"] as? String)
            #expect(try skus("?limit=2&cursor=\(cursor)") == ["IN-OLD", "EV-1"])

            for (query, field) in [("active=maybe", "active"), ("colour=red", "colour")] {
                let bad = try api.call("GET", "/admin/products?\(query)", token: admin)
                #expect(bad.status == 422 && Self.code(api, bad) == "validation_failed")
                #expect((api.object(bad)["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String } == [field])
            }
            let unknown = try api.call("GET", "/admin/products/\(UUID().uuidString.lowercased())", token: admin)
            #expect(unknown.status == 404 && Self.code(api, unknown) == "product_not_found")

            // A shopper: 403 on the admin routes, 404 and not listed on the public ones.
            #expect(try api.call("GET", "/admin/products/\(hidden)", token: alice).status == 403)
            #expect(try api.call("GET", "/admin/products?active=false", token: alice).status == 403)
            #expect(try api.call("GET", "/admin/products").status == 401)
            #expect(try api.call("GET", "/products/\(hidden)").status == 404)
            #expect(try api.call("GET", "/products/\(hidden)", token: alice).status == 404)
            let listed = api.object(try api.call("GET", "/products?q=item"))
            #expect((listed["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [other])
        }
    }
}

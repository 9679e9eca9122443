import Foundation
import Testing
import TestSupport

/// A product's stock alert threshold through the real binary: set on
/// create, changed and cleared by PATCH, validated with a 422 naming it,
/// shown to admins only; and the webhook events the server's changes
/// enqueue while `webhook_events` is on (the default), none while it is off.
@Suite struct ProductThresholdFlowTests {
    typealias API = AccountFlowTests.API

    static func threshold(_ api: API, _ response: RawClient.Response) -> Any? {
        api.object(response)["low_stock_threshold"]
    }

    @Test func theThresholdIsSetChangedClearedAndValidatedAndOnlyAdminsSeeIt() throws {
        try PaymentShop.run(stock: 20, secret: nil) { shop, api in
            let admin = shop.admin
            let draft = #"{"sku":"TH-1","name":"Kettle","price":{"amount":900,"currency":"USD"},"stock":12,"low_stock_threshold":5}"#
            let created = try api.call("POST", "/products", json: draft, token: admin)
            #expect(created.status == 201)
            #expect(Self.threshold(api, created) as? Int == 5)
            let id = try #require(api.object(created)["id"] as? String)

            // The storefront's documents leave it out; the admins' carry it.
            let storefront = try api.call("GET", "/products/\(id)")
            #expect(storefront.status == 200 && api.object(storefront)["low_stock_threshold"] == nil)
            let listed = (api.object(try api.call("GET", "/products?limit=100"))["items"] as? [[String: Any]]) ?? []
            #expect(!listed.isEmpty && listed.allSatisfy { $0["low_stock_threshold"] == nil })
            #expect(Self.threshold(api, try api.call("GET", "/admin/products/\(id)", token: admin)) as? Int == 5)
            let all = (api.object(try api.call("GET", "/admin/products?limit=100", token: admin))["items"] as? [[String: Any]]) ?? []
            #expect(all.first { $0["id"] as? String == id }?["low_stock_threshold"] as? Int == 5)
            #expect(all.first { $0["id"] as? String == shop.productID }?["low_stock_threshold"] is NSNull)

            // The admins' tag is the one a PATCH takes, and a threshold change moves it.
            let adminTag = try #require(try api.call("GET", "/admin/products/\(id)", token: admin).header("ETag"))
            let storefrontTag = try #require(storefront.header("ETag"))
            let changed = try api.call("PATCH", "/products/\(id)", json: #"{"low_stock_threshold":8}"#, token: admin,
                                       headers: ["If-Match": adminTag])
            #expect(changed.status == 200 && Self.threshold(api, changed) as? Int == 8)
            #expect(changed.header("ETag") != adminTag)
            let stale = try api.call("PATCH", "/products/\(id)", json: #"{"name":"Lost"}"#, token: admin,
                                     headers: ["If-Match": adminTag])
            #expect(stale.status == 412)
            // Other fields leave it as it is; the storefront's tag still names what it shows.
            let renamed = try api.call("PATCH", "/products/\(id)", json: #"{"name":"Big kettle"}"#, token: admin,
                                       headers: ["If-Match": storefrontTag])
            #expect(renamed.status == 200 && Self.threshold(api, renamed) as? Int == 8)
            // Null clears it.
            let cleared = try api.call("PATCH", "/products/\(id)", json: #"{"low_stock_threshold":null}"#, token: admin)
            #expect(cleared.status == 200 && Self.threshold(api, cleared) is NSNull)

            // Out of range or not an integer: 422 naming the field, nothing changed.
            for body in [#"{"low_stock_threshold":-1}"#, #"{"low_stock_threshold":1000001}"#,
                         #"{"low_stock_threshold":"5","stock":3}"#, #"{"low_stock_threshold":2.5}"#] {
                let refused = try api.call("PATCH", "/products/\(id)", json: body, token: admin)
                #expect(refused.status == 422 && PaymentShop.code(api, refused) == "validation_failed", "\(body)")
                #expect(PaymentShop.fields(api, refused).map { $0["field"] } == ["low_stock_threshold"], "\(body)")
            }
            let stored = api.object(try api.call("GET", "/admin/products/\(id)", token: admin))
            #expect(stored["low_stock_threshold"] is NSNull && stored["stock"] as? Int == 12)
            let refusedDraft = draft.replacingOccurrences(of: #""low_stock_threshold":5"#, with: #""low_stock_threshold":-3"#)
            let notCreated = try api.call("POST", "/products", json: refusedDraft, token: admin)
            #expect(notCreated.status == 422 && PaymentShop.fields(api, notCreated).map { $0["field"] } == ["low_stock_threshold"])
            // A customer cannot set it.
            let customer = try shop.customer("shopper")
            #expect(try api.call("PATCH", "/products/\(id)", json: #"{"low_stock_threshold":1}"#, token: customer).status == 403)
        }
    }

    /// The `webhook.event` jobs' types, oldest first.
    static func webhookEvents(_ api: API, admin: String) throws -> [String] {
        let response = try api.call("GET", "/admin/jobs?kind=webhook.event&limit=100", token: admin)
        #expect(response.status == 200)
        let items = api.object(response)["items"] as? [[String: Any]] ?? []
        return items.reversed().compactMap { ($0["payload"] as? [String: Any])?["type"] as? String }
    }

    @Test func theServersChangesEnqueueTheirWebhookEventsWhileTheSettingIsOn() throws {
        try PaymentShop.run(stock: 10, secret: nil) { shop, api in
            #expect(try api.call("PATCH", "/products/\(shop.productID)", json: #"{"low_stock_threshold":9}"#,
                                 token: shop.admin).status == 200)
            let buyer = try shop.customer("buyer")
            _ = try shop.checkout(buyer)
            #expect(try shop.stock() == 9)
            #expect(try Self.webhookEvents(api, admin: shop.admin)
                    == ["product.created", "product.updated", "customer.created", "product.stock_low", "order.created"])
        }
        try PaymentShop.run(stock: 10, arguments: ["--webhook-events", "false"], secret: nil) { shop, api in
            #expect(try api.call("PATCH", "/products/\(shop.productID)", json: #"{"low_stock_threshold":9}"#,
                                 token: shop.admin).status == 200)
            _ = try shop.checkout(try shop.customer("buyer"))
            #expect(try shop.stock() == 9)
            #expect(try Self.webhookEvents(api, admin: shop.admin).isEmpty)
        }
    }
}

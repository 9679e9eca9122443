import Foundation
import Testing
import TestSupport

/// `Idempotency-Key` as Stripe keeps it, over real HTTP against the real
/// binary: a key answers only the request it was first used for (the cart
/// checked out), per user.
@Suite struct IdempotencyKeyFlowTests {
    typealias API = AccountFlowTests.API

    func token(_ api: API, _ email: String, _ password: String) throws -> String {
        try #require(api.object(try api.call("POST", "/sessions", json: #"{"email":"\#(email)","password":"\#(password)"}"#))["token"] as? String)
    }

    @Test func theSameKeyWithAnotherCartIsRefusedAndTheCartIsNotOrdered() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-idempotency-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var server = ServerProcess(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment,
                                   database: ServerDatabase.fresh(in: directory))
        try server.start()
        let api = API(port: server.port)
        let admin = try token(api, "root@example.com", "a very long secret")
        var products: [String] = []
        for sku in ["MUG-1", "PEN-1"] {
            let body = #"{"sku":"\#(sku)","name":"\#(sku)","description":"","price":{"amount":500,"currency":"USD"},"stock":10}"#
            products.append(try #require(api.object(try api.call("POST", "/products", json: body, token: admin))["id"] as? String))
        }
        var customers: [String] = []
        for name in ["ann", "bob"] {
            #expect(try api.call("POST", "/users", json: #"{"name":"\#(name)","email":"\#(name)@example.com","password":"correct horse battery"}"#).status == 202)
            customers.append(try token(api, "\(name)@example.com", "correct horse battery"))
        }
        let (ann, bob) = (customers[0], customers[1])

        #expect(try api.call("PUT", "/cart/items/\(products[0])", json: #"{"quantity":2}"#, token: ann).status == 200)
        let first = try api.call("POST", "/checkout", token: ann, headers: ["Idempotency-Key": "k-1"])
        #expect(first.status == 201)
        let orderID = try #require(api.object(first)["id"] as? String)
        // A retry (the cart emptied by the first request) answers the first order.
        let retried = try api.call("POST", "/checkout", token: ann, headers: ["Idempotency-Key": "k-1"])
        #expect(retried.status == 201 && api.object(retried)["id"] as? String == orderID)
        #expect(try api.call("POST", "/orders/\(orderID)/cancel", token: ann).status == 200)

        // Another cart under the same key: refused, nothing ordered, the cart kept.
        #expect(try api.call("PUT", "/cart/items/\(products[1])", json: #"{"quantity":1}"#, token: ann).status == 200)
        let reused = try api.call("POST", "/checkout", token: ann, headers: ["Idempotency-Key": "k-1"])
        #expect(reused.status == 422)
        #expect(api.object(reused)["code"] as? String == "idempotency_key_reused")
        #expect(api.object(try api.call("GET", "/products/\(products[1])"))["stock"] as? Int == 10)
        let orders = api.object(try api.call("GET", "/orders", token: ann))["items"] as? [[String: Any]] ?? []
        #expect(orders.count == 1)
        let cart = api.object(try api.call("GET", "/cart", token: ann))["items"] as? [[String: Any]] ?? []
        #expect(cart.count == 1)
        // A new key orders it.
        #expect(try api.call("POST", "/checkout", token: ann, headers: ["Idempotency-Key": "k-2"]).status == 201)

        // Keys are per user: another customer's "k-1" is their own.
        #expect(try api.call("PUT", "/cart/items/\(products[1])", json: #"{"quantity":3}"#, token: bob).status == 200)
        let bobs = try api.call("POST", "/checkout", token: bob, headers: ["Idempotency-Key": "k-1"])
        #expect(bobs.status == 201 && api.object(bobs)["id"] as? String != orderID)
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 15) == 0)
    }
}

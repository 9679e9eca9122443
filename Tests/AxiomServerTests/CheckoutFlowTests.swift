import Foundation
import Testing
import TestSupport

/// Checkout over real HTTP against the real binary: no overselling under
/// concurrency, idempotent retries, cancellation returning stock, who may
/// see and move an order, and all of it after a restart.
@Suite struct CheckoutFlowTests {
    typealias API = AccountFlowTests.API

    func token(_ api: API, _ email: String, _ password: String) throws -> String {
        try #require(api.object(try api.call("POST", "/sessions", json: #"{"email":"\#(email)","password":"\#(password)"}"#))["token"] as? String)
    }

    func stock(_ api: API, _ productID: String) throws -> Int? {
        api.object(try api.call("GET", "/products/\(productID)"))["stock"] as? Int
    }

    @Test func concurrentCheckoutsNeverOversellAndOrdersBehave() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-checkout-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = ServerDatabase.fresh(in: directory)
        var server = ServerProcess(arguments: ["--port", "0"],
                                   environment: AccountFlowTests.adminEnvironment, database: database)
        try server.start()
        var api = API(port: server.port)
        let admin = try token(api, "root@example.com", "a very long secret")
        let created = try api.call("POST", "/products", json: #"{"sku":"LAMP-1","name":"Lamp","description":"","price":{"amount":4000,"currency":"USD"},"stock":10}"#, token: admin)
        let productID = try #require(api.object(created)["id"] as? String)

        // 20 customers, each with one lamp in the cart, all check out at once
        // (each costs two real argon2id hashes; the catalogue client's own
        // test runs 100 concurrent reservations).
        let customers = 20
        var tokens: [String] = []
        for index in 0..<customers {
            let email = "buyer\(index)@example.com"
            #expect(try api.call("POST", "/users", json: #"{"name":"Buyer \#(index)","email":"\#(email)","password":"correct horse battery"}"#).status == 202)
            let customer = try token(api, email, "correct horse battery")
            #expect(try api.call("PUT", "/cart/items/\(productID)", json: #"{"quantity":1}"#, token: customer).status == 200)
            tokens.append(customer)
        }
        let port = api.port
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for customer in tokens {
                group.addTask { try API(port: port).call("POST", "/checkout", token: customer).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 10)
        #expect(statuses.filter { $0 == 409 }.count == customers - 10)
        #expect(try stock(api, productID) == 0)

        // The first buyer's order: idempotent retry, visibility, transitions, cancellation.
        let buyer = tokens[statuses.firstIndex(of: 201)!]
        let orders = api.object(try api.call("GET", "/orders", token: buyer))
        let order = try #require((orders["items"] as? [[String: Any]])?.first)
        let orderID = try #require(order["id"] as? String)
        #expect(order["status"] as? String == "pending")  // until the provider reports it paid
        #expect(try api.call("GET", "/orders/\(orderID)", token: tokens.first { $0 != buyer }!).status == 404)
        #expect(try api.call("GET", "/orders/\(orderID)", token: admin).status == 200)
        #expect(try api.call("PATCH", "/orders/\(orderID)", json: #"{"status":"shipped"}"#, token: buyer).status == 403)
        #expect(try api.call("PATCH", "/orders/\(orderID)", json: #"{"status":"delivered"}"#, token: admin).status == 409)
        let cancelled = try api.call("POST", "/orders/\(orderID)/cancel", token: buyer)
        #expect(cancelled.status == 200)
        #expect(api.object(cancelled)["status"] as? String == "cancelled")
        #expect(try stock(api, productID) == 1)
        #expect(try api.call("POST", "/orders/\(orderID)/cancel", token: buyer).status == 409)
        #expect(try stock(api, productID) == 1)

        // Idempotency-Key: the retry returns the first order and takes no more stock.
        let retrying = tokens.last!
        #expect(try api.call("PUT", "/cart/items/\(productID)", json: #"{"quantity":1}"#, token: retrying).status == 200)
        let first = try api.call("POST", "/checkout", token: retrying, headers: ["Idempotency-Key": "order-7f3"])
        #expect(first.status == 201)
        let again = try api.call("POST", "/checkout", token: retrying, headers: ["Idempotency-Key": "order-7f3"])
        #expect(again.status == 201)
        #expect(api.object(again)["id"] as? String == api.object(first)["id"] as? String)
        #expect(try stock(api, productID) == 0)
        #expect(try api.call("POST", "/checkout", token: retrying).status == 409)  // cart was cleared
        let ordersBefore = (api.object(try api.call("GET", "/orders", token: retrying))["items"] as? [[String: Any]])?
            .compactMap { $0["id"] as? String }

        // A restart keeps orders, stock and carts as they were acknowledged.
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 15) == 0)
        server = ServerProcess(arguments: ["--port", "0"],
                               environment: AccountFlowTests.adminEnvironment, database: database)
        try server.start()
        defer { server.stop() }
        api = API(port: server.port)
        #expect(try stock(api, productID) == 0)
        let reread = api.object(try api.call("GET", "/orders/\(orderID)", token: admin))
        #expect(reread["status"] as? String == "cancelled")
        let ordersAfter = (api.object(try api.call("GET", "/orders", token: retrying))["items"] as? [[String: Any]])?
            .compactMap { $0["id"] as? String }
        #expect(ordersAfter == ordersBefore)
        #expect(ordersAfter?.first == api.object(first)["id"] as? String)  // newest first
        #expect(server.log.contains { $0.contains(#""event":"checkouts_reconciled","committed":0,"released":0,"refused":0,"payments_opened":0"#) })
    }
}

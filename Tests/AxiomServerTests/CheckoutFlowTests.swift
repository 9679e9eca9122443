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

    /// A shopper sees a shortage in the cart, line by line, before checkout
    /// refuses it; the cart's ETag follows the stock only when the stock
    /// decides about a line.
    @Test func theCartShowsEachLinesStockBeforeCheckoutAndItsETagFollowsIt() throws {
        try EventShop.run(users: 1, sessionsEach: 1) { shop in
            let (api, alice, admin) = (shop.api, shop.tokens[0][0], shop.admin)
            let empty = try WishlistFlowTests.product(api, sku: "ST-EMPTY", stock: 0, admin: admin)
            let few = try WishlistFlowTests.product(api, sku: "ST-FEW", stock: 3, admin: admin)
            func available(_ cart: [String: Any]) -> [String: Int] {
                var found: [String: Int] = [:]
                for line in cart["items"] as? [[String: Any]] ?? [] {
                    if let id = line["product_id"] as? String { found[id] = line["available_quantity"] as? Int ?? -1 }
                }
                return found
            }
            let added = try api.call("PUT", "/cart/items/\(empty)", json: #"{"quantity":1}"#, token: alice)
            #expect(added.status == 200 && available(api.object(added)) == [empty: 0])
            #expect(try api.call("PUT", "/cart/items/\(few)", json: #"{"quantity":2}"#, token: alice).status == 200)
            let cart = try api.call("GET", "/cart", token: alice)
            #expect(available(api.object(cart)) == [empty: 0, few: 2])
            let etag = try #require(cart.header("ETag"))

            // More stock for a line that had enough: the same cart, the same tag.
            func restock(_ id: String, _ stock: Int) throws {
                #expect(try api.call("PATCH", "/products/\(id)", json: #"{"stock":\#(stock)}"#, token: admin).status == 200)
            }
            try restock(few, 40)
            #expect(try api.call("GET", "/cart", token: alice, headers: ["If-None-Match": etag]).status == 304)
            // Less than the line wants: the cart says so, under a new tag.
            try restock(few, 1)
            let short = try api.call("GET", "/cart", token: alice, headers: ["If-None-Match": etag])
            #expect(short.status == 200 && available(api.object(short)) == [empty: 0, few: 1])
            #expect(short.header("ETag") != nil && short.header("ETag") != etag)
            // A write conditional on the old tag is refused: it no longer is the cart.
            let stale = try api.call("PUT", "/cart/items/\(few)", json: #"{"quantity":1}"#, token: alice,
                                     headers: ["If-Match": etag])
            #expect(stale.status == 412)

            // Checkout refuses what the cart showed; fixing the lines lets it through.
            let refused = try api.call("POST", "/checkout", token: alice)
            #expect(refused.status == 409 && api.object(refused)["code"] as? String == "insufficient_stock")
            try restock(empty, 5)
            let fixed = try api.call("PUT", "/cart/items/\(few)", json: #"{"quantity":1}"#, token: alice,
                                     headers: ["If-Match": try #require(short.header("ETag"))])
            #expect(fixed.status == 412)  // the restock of the other line changed the cart since
            let current = try api.call("GET", "/cart", token: alice)
            #expect(available(api.object(current)) == [empty: 1, few: 1])
            #expect(try api.call("PUT", "/cart/items/\(few)", json: #"{"quantity":1}"#, token: alice,
                                 headers: ["If-Match": try #require(current.header("ETag"))]).status == 200)
            #expect(try api.call("POST", "/checkout", token: alice).status == 201)
        }
    }
}

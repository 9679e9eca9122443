import Foundation
import Testing
import TestSupport

/// Issue 13's guarantees through real processes: three `axiom-server`
/// processes on one SQLite file (a real deployment too: replicas on one
/// host sharing a volume), each with its own memory, the requests spread
/// over them. Until the server starts on PostgreSQL, this is how the
/// composed rules (checkout's stock → order → payment) are tested across
/// processes; the clients' own replica tests run on both backends.
@Suite struct ReplicaFlowTests {
    typealias API = AccountFlowTests.API
    static let password = "correct horse battery"

    /// `count` servers on one database file, started one after another (the
    /// first applies the migrations), with an admin and a webhook secret.
    private func replicas(_ count: Int, database: String) throws -> [ServerProcess] {
        var environment = AccountFlowTests.adminEnvironment
        environment["AXIOM_PAYMENT_WEBHOOK_SECRET"] = PaymentShop.secret
        var servers: [ServerProcess] = []
        for _ in 0..<count {
            let server = ServerProcess(arguments: ["--port", "0", "--database", database], environment: environment)
            try server.start()
            servers.append(server)
        }
        return servers
    }

    private func product(_ api: API, admin: String, stock: Int) throws -> String {
        let body = #"{"sku":"REP-\#(UUID().uuidString.prefix(8))","name":"Kettle","description":"","price":{"amount":4000,"currency":"USD"},"stock":\#(stock)}"#
        return try #require(api.object(try api.call("POST", "/products", json: body, token: admin))["id"] as? String)
    }

    /// Registers and signs in a customer on `api`; the token.
    private func customer(_ api: API, _ name: String) throws -> String {
        let email = "\(name)@example.com"
        #expect(try api.call("POST", "/users", json: #"{"name":"\#(name)","email":"\#(email)","password":"\#(Self.password)"}"#).status == 202)
        return try api.token(email, Self.password)
    }

    /// Stock as a process that has read nothing yet sees it (the others'
    /// working sets follow the change feed, not this test's business).
    private func storedStock(_ product: String, database: String) throws -> Int? {
        let fresh = try replicas(1, database: database)[0]
        defer { fresh.stop() }
        return API(port: fresh.port).object(try API(port: fresh.port).call("GET", "/products/\(product)"))["stock"] as? Int
    }

    /// Three processes on one fresh SQLite file, the admin signed in on the
    /// first and a product of `stock` made there; all stopped after `body`.
    private func withThreeReplicas(stock: Int,
                                   _ body: (_ servers: [ServerProcess], _ apis: [API], _ database: String,
                                            _ admin: String, _ kettle: String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-replicas-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("shared.db").path
        let servers = try replicas(3, database: database)
        defer { for server in servers { server.stop() } }
        let apis = servers.map { API(port: $0.port) }
        let admin = try apis[0].adminToken()
        try await body(servers, apis, database, admin, try product(apis[0], admin: admin, stock: stock))
    }

    @Test func thirtyCheckoutsOverThreeProcessesOnAStockOfTenSellExactlyTen() async throws {
        try await withThreeReplicas(stock: 10) { servers, apis, database, _, kettle in
            var buyers: [String] = []
            for index in 0..<30 {
                let api = apis[index % 3]
                let token = try customer(api, "buyer\(index)")
                #expect(try api.call("PUT", "/cart/items/\(kettle)", json: #"{"quantity":1}"#, token: token).status == 200)
                buyers.append(token)
            }
            let ports = servers.map(\.port)
            let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for (index, token) in buyers.enumerated() {
                    // Checked out on another replica than the one that filled the cart.
                    group.addTask {
                        let api = API(port: ports[(index + 1) % 3])
                        let answer = try api.call("POST", "/checkout", token: token)
                        return (answer.status, api.object(answer)["code"] as? String)
                    }
                }
                return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
            }
            #expect(answers.filter { $0.0 == 201 }.count == 10)
            #expect(answers.filter { $0.0 == 409 && $0.1 == "insufficient_stock" }.count == 20)
            #expect(try storedStock(kettle, database: database) == 0)
        }
    }

    @Test func oneKeyAndOneWebhookEventSentToThreeProcessesAtOnceHaveOneEffect() async throws {
        try await withThreeReplicas(stock: 100) { servers, apis, database, admin, kettle in
            let token = try customer(apis[1], "sam")
            #expect(try apis[2].call("PUT", "/cart/items/\(kettle)", json: #"{"quantity":1}"#, token: token).status == 200)
            let ports = servers.map(\.port)

            let placed = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
                for port in ports {
                    group.addTask {
                        let answer = try API(port: port).call("POST", "/checkout", token: token,
                                                              headers: ["Idempotency-Key": "once-7f3"])
                        return (answer.status, answer.body)
                    }
                }
                return try await group.reduce(into: [(Int, [UInt8])]()) { $0.append($1) }
            }
            #expect(placed.allSatisfy { $0.0 == 201 })
            let orders = placed.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.1))) as? [String: Any] }
            #expect(Set(orders.compactMap { $0["id"] as? String }).count == 1)
            let listed = apis[0].object(try apis[0].call("GET", "/orders", token: token))["items"] as? [[String: Any]]
            #expect(listed?.count == 1)
            // The losers' reservations went back.
            #expect(try storedStock(kettle, database: database) == 99)

            let order = try #require(orders.first)
            let shop = PaymentShop(server: servers[0], api: apis[0], admin: admin, productID: kettle)
            let delivery = try shop.sign(order, eventID: "evt_replicas_once")
            let outcomes = try await withThrowingTaskGroup(of: String?.self) { group in
                for port in ports {
                    group.addTask {
                        let api = API(port: port)
                        let answer = try api.call("POST", "/payments/webhook", json: delivery.body,
                                                  headers: ["Axiom-Signature": delivery.signature])
                        return answer.status == 200 ? api.object(answer)["outcome"] as? String : nil
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "applied" }.count == 1)
            #expect(outcomes.filter { $0 == "duplicate" }.count == 2)
            let orderID = try #require(order["id"] as? String)
            for api in apis {
                let seen = api.object(try api.call("GET", "/orders/\(orderID)", token: token))
                #expect(PaymentShop.status(seen) == "confirmed")
                #expect(PaymentShop.paymentStatus(seen) == "succeeded")
            }
        }
    }
}

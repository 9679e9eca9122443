import Foundation
import Testing
import TestSupport

/// Two server processes on one SQLite file, each following the other's
/// changes through the polled outbox, as two replicas on one machine are.
/// With `replica_coherence: strict` a write acknowledged by A is what a
/// read on B answers right after, though B holds the older value in its
/// working set; a sign-out on A is refused by B; a cart change on A reaches
/// an `/events` stream on B.
@Suite(.serialized) struct ReplicaProcessTests {
    typealias API = AccountFlowTests.API
    static let password = "correct horse battery"

    struct Pair {
        let a: ServerProcess
        let b: ServerProcess
        let directory: URL

        func stop() {
            a.stop()
            b.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// `pollInterval`: a long one leaves only the barrier to bring B up to date.
    static func start(pollInterval: String) throws -> Pair {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-replicas-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("shared.db").path
        let arguments = ["--port", "0", "--database", database, "--replica-coherence", "strict",
                         "--change-feed", "poll", "--change-feed-poll-interval", pollInterval]
        let a = ServerProcess(arguments: arguments, environment: AccountFlowTests.adminEnvironment)
        try a.start()
        let b = ServerProcess(arguments: arguments, environment: AccountFlowTests.adminEnvironment)
        do { try b.start() } catch { a.stop(); throw error }
        return Pair(a: a, b: b, directory: directory)
    }

    /// On `api`: the admin signed in, a product, and the customer `email`
    /// registered and signed in.
    static func stocked(_ api: API, product: (sku: String, name: String, price: Int, stock: Int),
                        customer email: String) throws -> (admin: String, product: String, token: String) {
        let admin = try api.adminToken()
        let id = try api.product(sku: product.sku, name: product.name, price: product.price, stock: product.stock, admin: admin)
        try api.register("R", email: email, password: Self.password)
        return (admin, id, try api.token(email, Self.password))
    }

    @Test func writesOnOneProcessAreReadOnTheOtherAndASignOutIsRefusedThere() throws {
        let pair = try Self.start(pollInterval: "60")
        defer { pair.stop() }
        let a = API(port: pair.a.port)
        let b = API(port: pair.b.port)
        let (admin, product, token) = try Self.stocked(a, product: ("RP-1", "Kettle", 1000, 500), customer: "r@example.com")
        for round in 1...20 {
            // B reads first, so it holds the cart and the product A changes next.
            #expect(try b.call("GET", "/cart", token: token).status == 200)
            #expect(try b.call("GET", "/products/\(product)").status == 200)
            #expect(try a.call("PUT", "/cart/items/\(product)", json: #"{"quantity":\#(round)}"#, token: token).status == 200)
            #expect(try a.call("PATCH", "/products/\(product)", json: #"{"name":"Kettle \#(round)"}"#, token: admin).status == 200)
            let cart = b.object(try b.call("GET", "/cart", token: token))
            let lines = cart["items"] as? [[String: Any]]
            #expect(lines?.first?["quantity"] as? Int == round, "round \(round)")
            #expect(b.object(try b.call("GET", "/products/\(product)"))["name"] as? String == "Kettle \(round)", "round \(round)")
        }
        #expect(try b.call("GET", "/users/me", token: token).status == 200)
        #expect(try a.call("DELETE", "/sessions/current", token: token).status == 204)
        #expect(try b.call("GET", "/users/me", token: token).status == 401)
    }

    @Test func aCartChangeOnOneProcessReachesAStreamOnTheOther() throws {
        let pair = try Self.start(pollInterval: "0.05")
        defer { pair.stop() }
        let a = API(port: pair.a.port)
        let (_, product, onA) = try Self.stocked(a, product: ("RP-2", "Pot", 700, 50), customer: "s@example.com")
        let onB = try API(port: pair.b.port).token("s@example.com", Self.password)
        let stream = try EventStreamClient(port: pair.b.port, token: onB)
        for quantity in 1...3 {
            #expect(try a.call("PUT", "/cart/items/\(product)", json: #"{"quantity":\#(quantity)}"#, token: onA).status == 200)
            let event = try #require(try stream.nextEvent())
            #expect(event.type == "cart.updated")
            #expect(event.data.contains(#""quantity":\#(quantity)"#), "\(event.data)")
        }
    }
}

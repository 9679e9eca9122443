import Foundation
import Testing
import TestSupport

/// `/events` ids are the change outbox's sequence (issue 13): a
/// `Last-Event-ID` resumes on another process over the same database and
/// after a restart, and an order changed through one process reaches a
/// stream on another. Two processes on one database (a SQLite file, or a
/// schema on the PostgreSQL pass) with the polled feed, as
/// `ReplicaProcessTests` runs them.
@Suite(.serialized) struct EventResumeTests {
    typealias API = AccountFlowTests.API
    static let password = "correct horse battery"

    /// A shop on `processes` servers sharing one database: a product, one
    /// customer signed in once on each process.
    struct Shop {
        let servers: [ServerProcess]
        let apis: [API]
        let product: String
        /// The customer's token on each process.
        let tokens: [String]

        func stop() { for server in servers { server.stop() } }

        func setQuantity(_ quantity: Int, on index: Int) throws {
            let response = try apis[index].call("PUT", "/cart/items/\(product)", json: #"{"quantity":\#(quantity)}"#,
                                                token: tokens[index])
            #expect(response.status == 200)
        }

        func stream(on index: Int, after id: String? = nil) throws -> EventStreamClient {
            try EventStreamClient(port: servers[index].port, token: tokens[index], lastEventID: id)
        }

        /// Opens a stream on process `index`, changes the cart there once,
        /// and returns the id of the event that brought; the stream is then
        /// closed.
        func firstEventID(on index: Int) throws -> String {
            let stream = try stream(on: index)
            try setQuantity(1, on: index)
            return try #require(try stream.nextEvent()?.id)
        }
    }

    static func open(processes: Int, database: ServerDatabase) throws -> Shop {
        let arguments = ["--port", "0", "--change-feed", "poll", "--change-feed-poll-interval", "0.05"]
        var servers: [ServerProcess] = []
        do {
            for _ in 0..<processes {
                let server = ServerProcess(arguments: arguments, environment: AccountFlowTests.adminEnvironment, database: database)
                try server.start()
                servers.append(server)
            }
        } catch {
            for server in servers { server.stop() }
            throw error
        }
        let apis = servers.map { API(port: $0.port) }
        let admin = try apis[0].token("root@example.com", "a very long secret")
        let created = try apis[0].call("POST", "/products", json: #"{"sku":"ER-1","name":"Jug","description":"","price":{"amount":900,"currency":"USD"},"stock":100}"#, token: admin)
        let product = try #require(apis[0].object(created)["id"] as? String)
        #expect(try apis[0].call("POST", "/users", json: #"{"name":"E","email":"e@example.com","password":"\#(password)"}"#).status == 202)
        let tokens = try apis.map { try $0.token("e@example.com", password) }
        return Shop(servers: servers, apis: apis, product: product, tokens: tokens)
    }

    /// Runs `body` on `processes` processes over one fresh database, all
    /// stopped (and the database removed) when it ends.
    static func run(processes: Int, _ body: (Shop) throws -> Void) throws {
        try ServerDatabase.withFresh { database in
            let shop = try open(processes: processes, database: database)
            defer { shop.stop() }
            try body(shop)
        }
    }

    static func quantity(_ event: EventStreamClient.Event) -> Int? {
        (event.object["items"] as? [[String: Any]])?.first?["quantity"] as? Int
    }

    /// The ids a stream gave rise strictly: none repeats or moves back. (A
    /// change appended after a newer one, the cart's and the orders'
    /// observations being apart, goes without an id.)
    static func rising(_ events: [EventStreamClient.Event]) -> Bool {
        let ids = events.compactMap { EventShop.sequence($0.id) }
        return zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }
    }

    @Test func anIDFromOneProcessResumesOnTheOther() throws {
        try Self.run(processes: 2) { shop in
            let last = try shop.firstEventID(on: 0)
            // While the client is away: two cart changes and a checkout on A.
            try shop.setQuantity(2, on: 0)
            try shop.setQuantity(3, on: 0)
            let checkout = try shop.apis[0].call("POST", "/checkout", token: shop.tokens[0])
            #expect(checkout.status == 201)
            let orderID = try #require(shop.apis[0].object(checkout)["id"] as? String)

            // B never saw any of it; the id alone says where to go on.
            let onB = try shop.stream(on: 1, after: last)
            let replay = try [onB.nextEvent(), onB.nextEvent()].compactMap { $0 }
            // The order, then the cart the checkout emptied: each once, as now.
            #expect(replay.map(\.type) == ["order.updated", "cart.updated"])
            #expect(replay.first?.object["id"] as? String == orderID)
            #expect(replay.first?.object["status"] as? String == "pending")
            #expect((replay.last?.object["items"] as? [Any])?.isEmpty == true)
            #expect(replay.allSatisfy { $0.id != nil } && Self.rising(replay))
            #expect(EventShop.sequence(replay.first?.id)! > EventShop.sequence(last)!)
            // Live from there: A's next change, not a replayed one again.
            try shop.setQuantity(4, on: 0)
            let live = try #require(try onB.nextEvent())
            #expect(live.type == "cart.updated" && Self.quantity(live) == 4)
            #expect(live.id != nil && Self.rising(replay + [live]))
            // A stream on A resuming from the same id gets the same replay.
            let again = try shop.stream(on: 0, after: last)
            let replayOnA = try [again.nextEvent(), again.nextEvent()].compactMap { $0 }
            #expect(replayOnA.map(\.id) == [replay[0].id, live.id])
            #expect(replayOnA.map(\.type) == ["order.updated", "cart.updated"])
        }
    }

    @Test func anOrderPlacedAndCancelledOnOneProcessReachesAStreamOnTheOther() throws {
        try Self.run(processes: 2) { shop in
            let onB = try shop.stream(on: 1)
            try shop.setQuantity(2, on: 0)
            let checkout = try shop.apis[0].call("POST", "/checkout", token: shop.tokens[0])
            #expect(checkout.status == 201)
            let orderID = try #require(shop.apis[0].object(checkout)["id"] as? String)
            var events: [EventStreamClient.Event] = []
            // Bounded: the cart's two changes and the order's creation.
            for _ in 0..<10 where !events.contains(where: { $0.type == "order.created" }) {
                guard let event = try onB.nextEvent() else { break }
                events.append(event)
            }
            let created = try #require(events.first { $0.type == "order.created" })
            #expect(created.object["id"] as? String == orderID)
            #expect(created.object["status"] as? String == "pending")

            #expect(try shop.apis[0].call("POST", "/orders/\(orderID)/cancel", token: shop.tokens[0]).status == 200)
            for _ in 0..<10 where !events.contains(where: { $0.type == "order.updated" }) {
                guard let event = try onB.nextEvent() else { break }
                events.append(event)
            }
            let cancelled = try #require(events.first { $0.type == "order.updated" })
            #expect(cancelled.object["status"] as? String == "cancelled")
            #expect(cancelled.id != nil)
            // As GET /orders/{id} shows it, on either process.
            let shown = shop.apis[1].object(try shop.apis[1].call("GET", "/orders/\(orderID)", token: shop.tokens[1]))
            #expect(EventShop.sameJSON(cancelled.object, shown))
            #expect(Self.rising(events), "\(events.map(\.id))")
        }
    }

    @Test func anIDResumesAfterARestart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-evid-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = ServerDatabase.fresh(in: directory)
        let shop = try Self.open(processes: 1, database: database)
        let last = try shop.firstEventID(on: 0)
        try shop.setQuantity(6, on: 0)
        shop.stop()

        let restarted = ServerProcess(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment, database: database)
        try restarted.start()
        defer { restarted.stop() }
        let api = API(port: restarted.port)
        let token = try api.token("e@example.com", Self.password)
        let resumed = try EventStreamClient(port: restarted.port, token: token, lastEventID: last)
        let replayed = try #require(try resumed.nextEvent())
        #expect(replayed.type == "cart.updated" && Self.quantity(replayed) == 6)
        #expect(EventShop.sequence(replayed.id)! > EventShop.sequence(last)!)
        // Up to date: the next thing is live.
        let up = try EventStreamClient(port: restarted.port, token: token, lastEventID: replayed.id)
        #expect(try up.nextBlock() == "retry: 2000")
        #expect(try api.call("PUT", "/cart/items/\(shop.product)", json: #"{"quantity":7}"#, token: token).status == 200)
        let live = try #require(try up.nextEvent())
        #expect(Self.quantity(live) == 7 && EventShop.sequence(live.id)! > EventShop.sequence(replayed.id)!)
    }
}

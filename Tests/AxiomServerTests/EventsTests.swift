import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

/// `GET /events` against the real binary: what each session sees, how fast,
/// resuming with `Last-Event-ID`, heartbeats, and how streams end.
@Suite struct EventsTests {
    typealias API = AccountFlowTests.API
    static let password = "correct horse battery"

    /// A running server with an admin, one product and `users` customers,
    /// each signed in `sessions` times.
    struct Shop {
        let server: ServerProcess
        let api: API
        let productID: String
        let tokens: [[String]]

        static func open(users: Int, sessionsEach: Int, arguments: [String] = []) throws -> Shop {
            let server = ServerProcess(arguments: ["--port", "0"] + arguments, environment: AccountFlowTests.adminEnvironment)
            try server.start()
            let api = API(port: server.port)
            let admin = try signIn(api, "root@example.com", "a very long secret")
            let product = try api.call("POST", "/products", json: #"{"sku":"EV-1","name":"Teapot","description":"","price":{"amount":1250,"currency":"USD"},"stock":50}"#, token: admin)
            let productID = try #require(api.object(product)["id"] as? String)
            var tokens: [[String]] = []
            for index in 0..<users {
                let email = "live\(index)@example.com"
                #expect(try api.call("POST", "/users", json: #"{"name":"L","email":"\#(email)","password":"\#(password)"}"#).status == 201)
                tokens.append(try (0..<sessionsEach).map { _ in try signIn(api, email, password) })
            }
            return Shop(server: server, api: api, productID: productID, tokens: tokens)
        }

        static func signIn(_ api: API, _ email: String, _ password: String) throws -> String {
            let response = try api.call("POST", "/sessions", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
            return try #require(api.object(response)["token"] as? String)
        }

        func setQuantity(_ quantity: Int, token: String) throws {
            #expect(try api.call("PUT", "/cart/items/\(productID)", json: #"{"quantity":\#(quantity)}"#, token: token).status == 200)
        }
    }

    @Test func anotherSessionOfTheUserSeesTheCartChangeAndOtherUsersSeeNothing() throws {
        let shop = try Shop.open(users: 2, sessionsEach: 2, arguments: ["--events-heartbeat-interval", "0.2"])
        defer { shop.server.stop() }
        let watcher = try EventStreamClient(port: shop.server.port, token: shop.tokens[0][1])
        #expect(watcher.head.status == 200)
        #expect(watcher.head.header("Content-Type") == "text/event-stream; charset=utf-8")
        #expect(watcher.head.header("Transfer-Encoding") == "chunked")
        let stranger = try EventStreamClient(port: shop.server.port, token: shop.tokens[1][0])
        #expect(try watcher.nextBlock() == "retry: 2000")
        #expect(try stranger.nextBlock() == "retry: 2000")

        // Session A writes; session B's stream is read on another thread,
        // stamping the moment the event arrives.
        let arrival = Mutex<(ContinuousClock.Instant, EventStreamClient.Event?)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let reader = watcher
        Thread.detachNewThread {
            let event = try? reader.nextEvent()
            arrival.withLock { $0 = (ContinuousClock.now, event) }
            done.signal()
        }
        let sent = ContinuousClock.now
        try shop.setQuantity(3, token: shop.tokens[0][0])
        let acknowledged = ContinuousClock.now
        #expect(done.wait(timeout: .now() + 30) == .success)
        let (arrived, event) = try #require(arrival.withLock { $0 })
        let received = try #require(event)
        #expect(received.type == "cart.updated")
        let items = try #require(received.object["items"] as? [[String: Any]])
        #expect(items.first?["quantity"] as? Int == 3)
        #expect(items.first?["product_id"] as? String == shop.productID)
        #expect((received.object["total"] as? [String: Any])?["amount"] as? Int == 3750)
        print("live update latency: \(arrived - sent) from the PUT being sent, "
              + "\(arrived - acknowledged) after its response (\(acknowledged - sent) for the durable write)")

        // The other user's stream stays alive (heartbeats) but carries none of it.
        var comments: [String] = []
        var strangerEvents: [EventStreamClient.Event] = []
        while comments.count < 2 {
            guard let block = try stranger.nextBlock() else { break }
            if block.hasPrefix(":") { comments.append(block) } else { strangerEvents.append(.init(id: nil, type: block, data: "")) }
        }
        #expect(comments == [": heartbeat", ": heartbeat"])
        #expect(strangerEvents.isEmpty)
    }

    @Test func checkoutAndOrderChangesArriveAndLogoutEndsTheStream() throws {
        let shop = try Shop.open(users: 1, sessionsEach: 2)
        defer { shop.server.stop() }
        let watcher = try EventStreamClient(port: shop.server.port, token: shop.tokens[0][1])
        try shop.setQuantity(2, token: shop.tokens[0][0])
        let checkout = try shop.api.call("POST", "/checkout", token: shop.tokens[0][0])
        #expect(checkout.status == 201)
        let orderID = try #require(shop.api.object(checkout)["id"] as? String)

        var types: [String] = []
        var created: EventStreamClient.Event?
        while types.last != "cart.updated" || !types.contains("order.created") {
            guard let event = try watcher.nextEvent(), let type = event.type else { break }
            types.append(type)
            if type == "order.created" { created = event }
        }
        #expect(types.first == "cart.updated")
        #expect(types.contains("order.created"))
        #expect(created?.object["id"] as? String == orderID)
        #expect(types.last == "cart.updated") // emptied by the checkout

        // Logging out of the watching session ends its stream cleanly.
        #expect(try shop.api.call("DELETE", "/sessions/current", token: shop.tokens[0][1]).status == 204)
        var rest: [String] = []
        while let block = try watcher.nextBlock() { rest.append(block) }
        #expect(rest.allSatisfy { $0.hasPrefix(":") || $0.contains("order.updated") })
    }

    @Test func lastEventIDResumesOrAsksForARefetch() throws {
        let shop = try Shop.open(users: 1, sessionsEach: 2)
        defer { shop.server.stop() }
        let token = shop.tokens[0][1]
        var first: String?
        do {
            let stream = try EventStreamClient(port: shop.server.port, token: token)
            try shop.setQuantity(1, token: shop.tokens[0][0])
            first = try stream.nextEvent()?.id
        }
        let resumeFrom = try #require(first)
        // Two changes while disconnected.
        try shop.setQuantity(2, token: shop.tokens[0][0])
        try shop.setQuantity(4, token: shop.tokens[0][0])

        let resumed = try EventStreamClient(port: shop.server.port, token: token, lastEventID: resumeFrom)
        let replayed = try [resumed.nextEvent(), resumed.nextEvent()].compactMap { $0 }
        #expect(replayed.map(\.type) == ["cart.updated", "cart.updated"])
        let quantities = replayed.map { (($0.object["items"] as? [[String: Any]])?.first?["quantity"] as? Int) }
        #expect(quantities == [2, 4])
        #expect(replayed.last?.id != resumeFrom)

        let unknown = try EventStreamClient(port: shop.server.port, token: token, lastEventID: "from-another-life-7")
        let reset = try unknown.nextEvent()
        #expect(reset?.type == "reset")
        #expect(reset?.object["reason"] is String)
    }

    @Test func noTokenIs401AndSigtermEndsOpenStreamsPromptly() throws {
        let shop = try Shop.open(users: 1, sessionsEach: 1)
        defer { shop.server.stop() }
        let anonymous = try EventStreamClient(port: shop.server.port, token: nil)
        #expect(anonymous.head.status == 401)
        #expect(anonymous.head.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)

        let stream = try EventStreamClient(port: shop.server.port, token: shop.tokens[0][0])
        #expect(try stream.nextBlock() == "retry: 2000")
        let signalled = ContinuousClock.now
        shop.server.signal(SIGTERM)
        // The stream ends with its last chunk, and the process exits 0,
        // without waiting out the 10 s shutdown deadline.
        while try stream.nextBlock() != nil {}
        #expect(shop.server.waitForExit(seconds: 30) == 0)
        print("stream ended and process exited \(ContinuousClock.now - signalled) after SIGTERM")
        #expect(!shop.server.log.contains { $0.contains("\"forced_closed\":1") },
                "\(shop.server.log.filter { !$0.contains("\"request\"") }.suffix(4))")
    }
}

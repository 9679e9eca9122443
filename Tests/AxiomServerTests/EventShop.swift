import Foundation
import Testing
import TestSupport

/// A running server for the `GET /events` tests: an admin, one product and
/// `users` customers, each signed in `sessionsEach` times.
struct EventShop {
    typealias API = AccountFlowTests.API
    static let password = "correct horse battery"

    let server: ServerProcess
    let api: API
    let admin: String
    let productID: String
    /// `tokens[user][session]`.
    let tokens: [[String]]

    static func open(users: Int, sessionsEach: Int, arguments: [String] = []) throws -> EventShop {
        let shop = try PaymentShop.open(stock: 500, arguments: arguments, secret: nil,
                                        product: PaymentShop.Product(sku: "EV-1", name: "Teapot", price: 1250))
        let api = shop.api
        var tokens: [[String]] = []
        for index in 0..<users {
            let email = "live\(index)@example.com"
            try api.register("L", email: email, password: password)
            tokens.append(try (0..<sessionsEach).map { _ in try api.token(email, password) })
        }
        return EventShop(server: shop.server, api: api, admin: shop.admin, productID: shop.productID, tokens: tokens)
    }

    /// Runs `body` on a shop opened as `open` does, and stops its server
    /// when `body` ends, however it ends.
    static func run<T>(users: Int, sessionsEach: Int, arguments: [String] = [],
                       _ body: (EventShop) throws -> T) throws -> T {
        let shop = try open(users: users, sessionsEach: sessionsEach, arguments: arguments)
        defer { shop.server.stop() }
        return try body(shop)
    }

    static func run<T>(users: Int, sessionsEach: Int, arguments: [String] = [],
                       _ body: (EventShop) async throws -> T) async throws -> T {
        let shop = try open(users: users, sessionsEach: sessionsEach, arguments: arguments)
        defer { shop.server.stop() }
        return try await body(shop)
    }

    func setQuantity(_ quantity: Int, token: String) throws {
        #expect(try api.call("PUT", "/cart/items/\(productID)", json: #"{"quantity":\#(quantity)}"#, token: token).status == 200)
    }

    func stream(_ token: String?, lastEventID: String? = nil) throws -> EventStreamClient {
        try EventStreamClient(port: server.port, token: token, lastEventID: lastEventID)
    }

    /// `GET path`'s JSON body.
    /// Opens a stream on `token`, has `writer` change the cart once, and
    /// returns the id of the event that brought; the stream is then closed.
    func firstEventID(watching token: String, changedBy writer: String) throws -> String? {
        let stream = try stream(token)
        try setQuantity(1, token: writer)
        return try stream.nextEvent()?.id
    }

    func get(_ path: String, token: String) throws -> [String: Any] {
        let response = try api.call("GET", path, token: token)
        #expect(response.status == 200)
        return api.object(response)
    }

    /// JSON objects compared by their canonical (sorted-key) encoding.
    static func sameJSON(_ lhs: [String: Any], _ rhs: [String: Any]) -> Bool {
        guard let left = try? JSONSerialization.data(withJSONObject: lhs, options: [.sortedKeys]),
              let right = try? JSONSerialization.data(withJSONObject: rhs, options: [.sortedKeys]) else { return false }
        return left == right
    }

    /// An event id as the number it is: the change outbox's sequence.
    static func sequence(_ id: String?) -> Int? {
        id.flatMap { Int($0) }
    }
}

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
        let server = ServerProcess(arguments: ["--port", "0"] + arguments, environment: AccountFlowTests.adminEnvironment)
        try server.start()
        let api = API(port: server.port)
        let admin = try signIn(api, "root@example.com", "a very long secret")
        let product = try api.call("POST", "/products", json: #"{"sku":"EV-1","name":"Teapot","description":"","price":{"amount":1250,"currency":"USD"},"stock":500}"#, token: admin)
        let productID = try #require(api.object(product)["id"] as? String)
        var tokens: [[String]] = []
        for index in 0..<users {
            let email = "live\(index)@example.com"
            #expect(try api.call("POST", "/users", json: #"{"name":"L","email":"\#(email)","password":"\#(password)"}"#).status == 202)
            tokens.append(try (0..<sessionsEach).map { _ in try signIn(api, email, password) })
        }
        return EventShop(server: server, api: api, admin: admin, productID: productID, tokens: tokens)
    }

    static func signIn(_ api: API, _ email: String, _ password: String) throws -> String {
        let response = try api.call("POST", "/sessions", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        return try #require(api.object(response)["token"] as? String)
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

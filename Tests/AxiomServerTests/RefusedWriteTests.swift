import Foundation
import Testing
import TestSupport

/// A refused write leaves storage exactly as it was (issue 9): for every
/// write route, what the API shows (and, after a restart, what SQLite
/// holds) is the same before and after a 4xx.
@Suite struct RefusedWriteTests {
    typealias API = AccountFlowTests.API

    /// The bodies of `paths`, read with `token`, as canonical JSON text
    /// (sorted keys: JSONEncoder's member order differs from run to run).
    static func snapshot(_ api: API, _ paths: [String], token: String?) throws -> [String] {
        try paths.map { path in
            let response = try api.call("GET", path, token: token)
            let value = try JSONSerialization.jsonObject(with: Data(response.body))
            let canonical = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
            return "\(path) \(response.status) " + String(decoding: canonical, as: UTF8.self)
        }
    }

    /// Runs `request`, requires a 4xx status in `expected`, and requires the
    /// snapshot of `paths` unchanged by it.
    static func expectRefusedAndUnchanged(_ api: API, _ paths: [String], token: String?, expected: Set<Int>,
                                          _ what: String, _ request: () throws -> RawClient.Response) throws {
        let before = try snapshot(api, paths, token: token)
        let response = try request()
        #expect(expected.contains(response.status), "\(what): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        let after = try snapshot(api, paths, token: token)
        #expect(after == before, "\(what) changed what the API shows: \(zip(before, after).filter { $0 != $1 })")
    }

    @Test func everyRefusedWriteLeavesStorageAsItWas() throws {
        try ServerDatabase.withFresh { database in
            var server = ServerProcess(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment, database: database)
            try server.start()
            defer { server.stop() }
            var api = API(port: server.port)
            let admin = try api.token("root@example.com", "a very long secret")
            func createProduct(_ sku: String, stock: Int) throws -> String {
                let body = #"{"sku":"\#(sku)","name":"Item \#(sku)","price":{"amount":500,"currency":"USD"},"stock":\#(stock)}"#
                return try #require(api.object(try api.call("POST", "/products", json: body, token: admin))["id"] as? String)
            }
            let plenty = try createProduct("PLENTY", stock: 10)
            let scarce = try createProduct("SCARCE", stock: 1)
            #expect(try api.call("POST", "/users", json: #"{"name":"Bea","email":"bea@example.com","password":"correct horse battery"}"#).status == 202)
            let bea = try api.token("bea@example.com", "correct horse battery")
            let beaID = try api.userID(bea)
            let catalogue = ["/products/\(plenty)", "/products/\(scarce)", "/products?limit=100"]
            let account = ["/users/me", "/cart", "/orders"]

            // Cart: out-of-range quantities, an unknown product, a full cart.
            #expect(try api.call("PUT", "/cart/items/\(plenty)", json: #"{"quantity":2}"#, token: bea).status == 200)
            for body in [#"{"quantity":0}"#, #"{"quantity":100}"#, #"{"quantity":-1}"#, #"{"quantity":1e1}"#, #"{"quantity":9223372036854775808}"#] {
                try Self.expectRefusedAndUnchanged(api, account + catalogue, token: bea, expected: [422], "PUT \(body)") {
                    try api.call("PUT", "/cart/items/\(plenty)", json: body, token: bea)
                }
            }
            try Self.expectRefusedAndUnchanged(api, account, token: bea, expected: [404], "PUT unknown product") {
                try api.call("PUT", "/cart/items/\(UUID().uuidString.lowercased())", json: #"{"quantity":1}"#, token: bea)
            }
            try Self.expectRefusedAndUnchanged(api, account, token: bea, expected: [404], "DELETE a line by a non-id") {
                try api.call("DELETE", "/cart/items/not-a-uuid", token: bea)
            }
            try Self.expectRefusedAndUnchanged(api, account, token: bea, expected: [401], "DELETE /cart without a session") {
                try api.call("DELETE", "/cart")
            }

            // Checkout: the scarce product's second unit is missing, so nothing
            // is reserved, ordered or cleared (the plentiful line included).
            #expect(try api.call("PUT", "/cart/items/\(scarce)", json: #"{"quantity":2}"#, token: bea).status == 200)
            try Self.expectRefusedAndUnchanged(api, account + catalogue, token: bea, expected: [409], "checkout short of stock") {
                try api.call("POST", "/checkout", token: bea)
            }
            #expect(try api.call("PUT", "/cart/items/\(scarce)", json: #"{"quantity":1}"#, token: bea).status == 200)
            let order = try api.call("POST", "/checkout", token: bea)
            #expect(order.status == 201)
            let orderID = try #require(api.object(order)["id"] as? String)
            let orderPaths = ["/orders/\(orderID)"] + account + catalogue

            // Orders: a bad status, a move the state machine forbids, a customer
            // moving an order, cancelling twice.
            try Self.expectRefusedAndUnchanged(api, orderPaths, token: bea, expected: [422], "PATCH order to a bogus status") {
                try api.call("PATCH", "/orders/\(orderID)", json: #"{"status":"teleported"}"#, token: admin)
            }
            try Self.expectRefusedAndUnchanged(api, orderPaths, token: bea, expected: [409], "PATCH pending → delivered") {
                try api.call("PATCH", "/orders/\(orderID)", json: #"{"status":"delivered"}"#, token: admin)
            }
            try Self.expectRefusedAndUnchanged(api, orderPaths, token: bea, expected: [403], "customer ships their order") {
                try api.call("PATCH", "/orders/\(orderID)", json: #"{"status":"shipped"}"#, token: bea)
            }
            #expect(try api.call("POST", "/orders/\(orderID)/cancel", token: bea).status == 200)
            try Self.expectRefusedAndUnchanged(api, orderPaths, token: bea, expected: [409], "cancel twice") {
                try api.call("POST", "/orders/\(orderID)/cancel", token: bea)
            }

            // Catalogue: a draft with one bad field among good ones, a duplicate
            // SKU, a patch with one bad field (the good ones are not applied).
            let tooDear = #"{"sku":"DEAR","name":"Dear","price":{"amount":1000000000001,"currency":"USD"},"stock":1}"#
            try Self.expectRefusedAndUnchanged(api, catalogue, token: admin, expected: [422], "POST a product priced beyond the maximum") {
                try api.call("POST", "/products", json: tooDear, token: admin)
            }
            try Self.expectRefusedAndUnchanged(api, catalogue, token: admin, expected: [409], "POST a duplicate SKU") {
                try api.call("POST", "/products", json: #"{"sku":"PLENTY","name":"Again","price":{"amount":1,"currency":"USD"}}"#, token: admin)
            }
            try Self.expectRefusedAndUnchanged(api, catalogue, token: admin, expected: [422], "PATCH a product with one bad field") {
                try api.call("PATCH", "/products/\(plenty)", json: #"{"name":"Renamed","stock":-1}"#, token: admin)
            }
            try Self.expectRefusedAndUnchanged(api, catalogue, token: admin, expected: [415], "PATCH a product as text/plain") {
                try api.call("PATCH", "/products/\(plenty)", body: Array(#"{"name":"Renamed"}"#.utf8), contentType: "text/plain", token: admin)
            }

            // Users: registration with one bad field, a profile patch with one
            // bad field, an admin patch with one bad field.
            let users = ["/users?limit=100", "/users/\(beaID)"]
            try Self.expectRefusedAndUnchanged(api, users, token: admin, expected: [422], "POST /users with a bad name") {
                let name = "a" + String(repeating: "\u{301}", count: 100_000)
                return try api.call("POST", "/users", json: #"{"name":"\#(name)","email":"cy@example.com","password":"correct horse battery"}"#)
            }
            try Self.expectRefusedAndUnchanged(api, users, token: admin, expected: [415], "POST /users as a cross-site form") {
                try api.call("POST", "/users", body: Array(#"{"name":"Cy","email":"cy@example.com","password":"correct horse battery"}"#.utf8),
                             contentType: "text/plain")
            }
            try Self.expectRefusedAndUnchanged(api, ["/users/\(beaID)"] + account, token: bea, expected: [422], "PATCH /users/me with one bad field") {
                try api.call("PATCH", "/users/me", json: #"{"name":"Beatrice","email":"not an address"}"#, token: bea)
            }
            try Self.expectRefusedAndUnchanged(api, users, token: admin, expected: [422], "PATCH /users/{id} with one bad field") {
                try api.call("PATCH", "/users/\(beaID)", json: #"{"status":"suspended","role":"emperor"}"#, token: admin)
            }
            try Self.expectRefusedAndUnchanged(api, users, token: admin, expected: [400], "PATCH /users/{id} with duplicate keys") {
                try api.call("PATCH", "/users/\(beaID)", json: #"{"status":"active","status":"suspended"}"#, token: admin)
            }

            // What storage holds: the same after a restart.
            let beforeRestart = try Self.snapshot(api, users + catalogue, token: admin)
            server.stop()
            server = ServerProcess(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment, database: database)
            try server.start()
            api = API(port: server.port)
            let again = try api.token("root@example.com", "a very long secret")
            #expect(try Self.snapshot(api, users + catalogue, token: again) == beforeRestart)
        }
    }
}

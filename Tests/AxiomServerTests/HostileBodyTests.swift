import Foundation
import Testing
import TestSupport

/// Every route, sent the hostile bodies of issue 9 through the real binary:
/// a route that reads a body answers each with a 4xx problem, no route
/// answers 5xx, and the process is alive and serving afterwards.
@Suite struct HostileBodyTests {
    typealias API = AccountFlowTests.API

    /// A route, a body it would accept (which the hostile variants start
    /// from), and the member of that body that holds text.
    struct Route {
        let method: String
        let path: String
        let validBody: String
        let textField: String
        let token: String?
        let readsBody: Bool
    }

    /// `valid` with `field` set to `value`.
    static func replacing(_ field: String, in valid: String, with value: String) throws -> [UInt8] {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(valid.utf8)) as? [String: Any])
        object[field] = value
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    /// The variants of a valid body `{...}`: each must be refused.
    static func hostileBodies(of valid: String, textField: String) throws -> [(name: String, contentType: String?, body: [UInt8])] {
        let inner = String(valid.dropFirst().dropLast())
        let rest = inner.isEmpty ? "" : "," + inner
        let json = "application/json"
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in valid.utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        return [
            ("integer 2^63", json, Array(#"{"quantity":9223372036854775808,"n":9223372036854775808\#(rest)}"#.utf8)),
            ("integer 10^20", json, Array(#"{"n":99999999999999999999\#(rest)}"#.utf8)),
            ("integer -2^63-1", json, Array(#"{"n":-9223372036854775809\#(rest)}"#.utf8)),
            ("exponent integer", json, Array(#"{"quantity":1e1,"stock":1e1,"n":1e1\#(rest)}"#.utf8)),
            ("fraction", json, Array(#"{"n":1.0\#(rest)}"#.utf8)),
            ("deep nesting", json, Array(("{\"n\":" + String(repeating: "[", count: 100_000)
                                          + String(repeating: "]", count: 100_000) + "\(rest)}").utf8)),
            ("duplicate keys", json, Array(#"{"n":1,"n":2\#(rest)}"#.utf8)),
            ("trailing comma", json, Array("{\(inner),}".utf8)),
            ("BOM", json, [0xEF, 0xBB, 0xBF] + Array(valid.utf8)),
            ("UTF-16", json, utf16),
            ("invalid UTF-8", json, Array(#"{"n":""#.utf8) + [0xC3, 0x28, 0xFF] + Array(#""\#(rest)}"#.utf8)),
            ("huge string", json, try replacing(textField, in: valid, with: String(repeating: "x", count: 900_000))),
            ("combining-mark text", json, try replacing(textField, in: valid, with: "a" + String(repeating: "\u{301}", count: 100_000))),
            ("text/plain", "text/plain", Array(valid.utf8)),
            ("form", "application/x-www-form-urlencoded", Array(valid.utf8)),
            ("no Content-Type", nil, Array(valid.utf8)),
            ("not JSON", json, Array("name=a&email=b".utf8)),
            ("empty", json, []),
        ]
    }

    @Test func everyRouteRefusesHostileBodiesWith4xxAndTheServerLives() throws {
        try EventShop.run(users: 1, sessionsEach: 1) { shop in
            let api = shop.api
            let customer = shop.tokens[0][0]
            let me = try api.userID(customer)
            #expect(try api.call("PUT", "/cart/items/\(shop.productID)", json: #"{"quantity":1}"#, token: customer).status == 200)
            let order = try api.call("POST", "/checkout", token: customer)
            let orderID = try #require(api.object(order)["id"] as? String)
            let product = #"{"sku":"NEW-1","name":"Kettle","description":"","price":{"amount":100,"currency":"USD"},"stock":1}"#
            let routes = [
                Route(method: "POST", path: "/users", validBody: #"{"name":"N","email":"new@example.com","password":"correct horse battery"}"#,
                      textField: "name", token: nil, readsBody: true),
                Route(method: "POST", path: "/sessions", validBody: #"{"email":"nobody@example.com","password":"correct horse battery"}"#,
                      textField: "email", token: nil, readsBody: true),
                Route(method: "PATCH", path: "/users/me", validBody: #"{"name":"Renamed"}"#, textField: "name", token: customer, readsBody: true),
                Route(method: "PATCH", path: "/users/\(me)", validBody: #"{"status":"active"}"#, textField: "status", token: shop.admin, readsBody: true),
                Route(method: "POST", path: "/products", validBody: product, textField: "name", token: shop.admin, readsBody: true),
                Route(method: "PATCH", path: "/products/\(shop.productID)", validBody: #"{"name":"Kettle 2"}"#, textField: "name",
                      token: shop.admin, readsBody: true),
                Route(method: "PUT", path: "/cart/items/\(shop.productID)", validBody: #"{"quantity":2}"#, textField: "quantity",
                      token: customer, readsBody: true),
                Route(method: "PATCH", path: "/orders/\(orderID)", validBody: #"{"status":"shipped"}"#, textField: "status",
                      token: shop.admin, readsBody: true),
                Route(method: "DELETE", path: "/cart/items/\(shop.productID)", validBody: "{}", textField: "n", token: customer, readsBody: false),
                Route(method: "POST", path: "/checkout", validBody: "{}", textField: "n", token: customer, readsBody: false),
                Route(method: "POST", path: "/orders/\(orderID)/cancel", validBody: "{}", textField: "n", token: shop.admin, readsBody: false),
                Route(method: "GET", path: "/cart", validBody: "{}", textField: "n", token: customer, readsBody: false),
                Route(method: "GET", path: "/products", validBody: "{}", textField: "n", token: nil, readsBody: false),
            ]
            var failures: [String] = []
            for route in routes {
                for hostile in try Self.hostileBodies(of: route.validBody, textField: route.textField) {
                    let response = try api.call(route.method, route.path, body: hostile.body, contentType: hostile.contentType,
                                                token: route.token)
                    let allowed = route.readsBody ? 400..<500 : 200..<500
                    if !allowed.contains(response.status) {
                        failures.append("\(route.method) \(route.path) \(hostile.name): \(response.status) "
                                        + String(decoding: response.body.prefix(200), as: UTF8.self))
                    }
                    guard shop.server.process.isRunning else {
                        Issue.record("the server died on \(route.method) \(route.path) \(hostile.name)")
                        return
                    }
                }
            }
            #expect(failures.isEmpty, "\(failures)")
            #expect(try api.call("GET", "/health").status == 200)
        }
    }

    /// Issue 9, finding 1: each of these killed the process (an integer
    /// overflow trap in the cart's fast read of `{"quantity": n}`).
    @Test(arguments: ["9223372036854775808", "99999999999999999999", "-9223372036854775809", "-9223372036854775808"])
    func hostileQuantitiesAre422AndTheServerLives(_ quantity: String) throws {
        try EventShop.run(users: 1, sessionsEach: 1) { shop in
            let customer = shop.tokens[0][0]
            let response = try shop.api.call("PUT", "/cart/items/\(shop.productID)", json: #"{"quantity":\#(quantity)}"#,
                                             token: customer)
            #expect(response.status == 422)
            #expect(shop.server.process.isRunning)
            let cart = try shop.api.call("GET", "/cart", token: customer)
            #expect(cart.status == 200)
            #expect((shop.api.object(cart)["items"] as? [Any])?.isEmpty == true)
        }
    }
}

import Foundation
import Testing
import TestSupport

/// Issue 14's readable JSON: every document the real server sends has its
/// members in the order openapi.yaml lists the schema's properties (`id`
/// first), nested documents too, and the same bytes on every response.
@Suite struct JSONFieldOrderTests {
    typealias API = AccountFlowTests.API

    /// A JSON value with its members in the order they were written.
    indirect enum Ordered {
        case object([(String, Ordered)])
        case array([Ordered])
        case scalar

        var keys: [String] {
            if case .object(let members) = self { return members.map(\.0) }
            return []
        }

        subscript(_ key: String) -> Ordered? {
            if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
            return nil
        }

        var elements: [Ordered] {
            if case .array(let elements) = self { return elements }
            return []
        }
    }

    /// A reader for the server's compact JSON, keeping member order (JSONSerialization does not).
    struct Reader {
        let bytes: [UInt8]
        var index = 0

        static func parse(_ bytes: [UInt8]) throws -> Ordered {
            var reader = Reader(bytes: bytes)
            return try reader.value()
        }

        mutating func value() throws -> Ordered {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, Ordered)] = []
                while bytes[index] != UInt8(ascii: "}") {
                    if bytes[index] == UInt8(ascii: ",") { index += 1 }
                    let key = try string()
                    guard bytes[index] == UInt8(ascii: ":") else { throw CocoaError(.coderReadCorrupt) }
                    index += 1
                    members.append((key, try value()))
                }
                index += 1
                return .object(members)
            case UInt8(ascii: "["):
                index += 1
                var elements: [Ordered] = []
                while bytes[index] != UInt8(ascii: "]") {
                    if bytes[index] == UInt8(ascii: ",") { index += 1 }
                    elements.append(try value())
                }
                index += 1
                return .array(elements)
            case UInt8(ascii: "\""):
                _ = try string()
                return .scalar
            default:
                while index < bytes.count, !",}]".utf8.contains(bytes[index]) { index += 1 }
                return .scalar
            }
        }

        mutating func string() throws -> String {
            guard bytes[index] == UInt8(ascii: "\"") else { throw CocoaError(.coderReadCorrupt) }
            let start = index + 1
            index += 1
            while bytes[index] != UInt8(ascii: "\"") { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
            index += 1
            return String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
        }
    }

    /// The property names of `schema` in openapi.yaml, in order; `path`
    /// walks into inline nested schemas (`["items"]`: the array's element).
    static func properties(of schema: String, path: [String] = []) throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let lines = try String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        func indent(_ line: Substring) -> Int { line.prefix { $0 == " " }.count }
        guard var at = lines.firstIndex(of: "    \(schema):") else { return [] }
        var depth = 4
        // properties: → name: (→ items: → properties: → …)
        for step in path + [""] {
            guard let properties = lines[at...].dropFirst().firstIndex(where: { $0 == String(repeating: " ", count: depth + 2) + "properties:" })
            else { return [] }
            depth += 4
            if step.isEmpty {
                at = properties
                break
            }
            guard let member = lines[properties...].firstIndex(of: Substring(String(repeating: " ", count: depth) + step + ":"))
            else { return [] }
            at = member
            // An array member's element schema sits one level further, under `items:`.
            if let items = lines[member...].dropFirst().first(where: { indent($0) == depth + 2 && $0.hasSuffix("items:") }),
               items.trimmingCharacters(in: .whitespaces) == "items:" {
                at = lines[member...].dropFirst().firstIndex(of: items)!
                depth += 2
            }
        }
        var names: [String] = []
        for line in lines[at...].dropFirst() {
            let width = indent(line)
            if width < depth { break }
            if width == depth, line.hasSuffix(":") { names.append(String(line.dropFirst(depth).dropLast())) }
        }
        return names
    }

    /// `keys` are `schema`'s properties in its order (optional ones may be absent).
    static func expectOrder(_ keys: [String], _ schema: String, path: [String] = []) throws {
        let listed = try properties(of: schema, path: path)
        #expect(!listed.isEmpty, "openapi.yaml lists \(schema) \(path)")
        #expect(!keys.isEmpty, "\(schema) \(path) has members")
        #expect(keys == listed.filter(keys.contains), "\(schema) \(path): sent \(keys), openapi.yaml lists \(listed)")
        if listed.first == "id" { #expect(keys.first == "id", "\(schema): id first") }
    }

    func token(_ api: API, _ email: String, _ password: String) throws -> (String, Ordered) {
        let body = #"{"email":"\#(email)","password":"\#(password)"}"#
        let response = try api.call("POST", "/sessions", json: body)
        return (try #require(api.object(response)["token"] as? String), try Reader.parse(response.body))
    }

    @Test func everyDocumentFollowsItsSchemasPropertyOrder() throws {
        try ServerProcess.run(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment) { server, api in
            let (admin, _) = try token(api, "root@example.com", "a very long secret")
            let draft = #"{"sku":"MUG-1","name":"Mug","description":"A mug","price":{"amount":300,"currency":"USD"},"stock":10}"#
            let created = try api.call("POST", "/products", json: draft, token: admin)
            let product = try Reader.parse(created.body)
            try Self.expectOrder(product.keys, "Product")
            try Self.expectOrder(product["price"]?.keys ?? [], "Money")
            let id = try #require(api.object(created)["id"] as? String)
            let read = try api.call("GET", "/products/\(id)")
            try Self.expectOrder(try Reader.parse(read.body).keys, "Product")
            #expect(read.body == (try api.call("GET", "/products/\(id)")).body, "the same bytes on every response")
            let page = try Reader.parse(try api.call("GET", "/products?limit=5").body)
            try Self.expectOrder(page.keys, "ProductPage")
            try Self.expectOrder(page["items"]?.elements.first?.keys ?? [], "Product")

            let registered = try api.call("POST", "/users", json: #"{"name":"Sam","email":"sam@example.com","password":"correct horse battery"}"#)
            #expect(try Reader.parse(registered.body).keys == ["status", "detail"])
            let (sam, session) = try token(api, "sam@example.com", "correct horse battery")
            try Self.expectOrder(session.keys, "Session")
            try Self.expectOrder(session["user"]?.keys ?? [], "User")
            try Self.expectOrder(try Reader.parse(try api.call("GET", "/users/me", token: sam).body).keys, "User")

            let cart = try Reader.parse(try api.call("PUT", "/cart/items/\(id)", json: #"{"quantity":2}"#, token: sam).body)
            try Self.expectOrder(cart.keys, "Cart")
            try Self.expectOrder(cart["items"]?.elements.first?.keys ?? [], "Cart", path: ["items"])

            let placed = try api.call("POST", "/checkout", token: sam, headers: ["Idempotency-Key": "order-1"])
            #expect(placed.status == 201)
            let order = try Reader.parse(placed.body)
            try Self.expectOrder(order.keys, "Order")
            try Self.expectOrder(order["items"]?.elements.first?.keys ?? [], "Order", path: ["items"])
            try Self.expectOrder(order["payment"]?.keys ?? [], "Payment")
            let orderID = try #require(api.object(placed)["id"] as? String)
            let again = try api.call("GET", "/orders/\(orderID)", token: sam)
            try Self.expectOrder(try Reader.parse(again.body).keys, "Order")
            #expect(again.body == (try api.call("GET", "/orders/\(orderID)", token: sam)).body)
        }
    }
}

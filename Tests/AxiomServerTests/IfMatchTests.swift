import Foundation
import Testing
import TestSupport

/// `If-Match` on writes (RFC 9110 13.1.1) against the real server binary
/// over real sockets: the tag `GET` gave is the one a write accepts, a
/// changed resource is `412 precondition_failed` with nothing changed, and
/// of two writers holding one tag exactly one wins, because the comparison
/// is made inside the write.
@Suite struct IfMatchTests {
    typealias API = AccountFlowTests.API

    func token(_ api: API, _ email: String, _ password: String) throws -> String {
        let body = #"{"email":"\#(email)","password":"\#(password)"}"#
        return try #require(api.object(try api.call("POST", "/sessions", json: body))["token"] as? String)
    }

    func product(_ api: API, admin: String, sku: String) throws -> String {
        let body = #"{"sku":"\#(sku)","name":"\#(sku)","description":"","price":{"amount":300,"currency":"USD"},"stock":1000}"#
        return try #require(api.object(try api.call("POST", "/products", json: body, token: admin))["id"] as? String)
    }

    func code(_ api: API, _ response: RawClient.Response) -> String? { api.object(response)["code"] as? String }

    @Test func twoAdminsWithOneETagOneWinsAndTheOtherGets412() async throws {
        try await ServerProcess.run(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment) { server, api in
            let first = try token(api, "root@example.com", "a very long secret")
            let second = try token(api, "root@example.com", "a very long secret")
            let id = try product(api, admin: first, sku: "KETTLE-1")
            for round in 0..<20 {
                let read = try api.call("GET", "/products/\(id)")
                let tag = try #require(read.header("ETag"))
                let port = api.port
                async let a = API(port: port).call("PATCH", "/products/\(id)", json: #"{"name":"A\#(round)"}"#,
                                                   token: first, headers: ["If-Match": tag])
                async let b = API(port: port).call("PATCH", "/products/\(id)", json: #"{"name":"B\#(round)"}"#,
                                                   token: second, headers: ["If-Match": tag])
                let (left, right) = try await (a, b)
                #expect([left.status, right.status].sorted() == [200, 412], "round \(round): \(left.status) \(right.status)")
                let (won, lost) = left.status == 200 ? (left, right) : (right, left)
                #expect(code(api, lost) == "precondition_failed")
                // The write answers the admins' document (with the stock
                // alert threshold), whose tag the next admin read gives.
                let after = try api.call("GET", "/admin/products/\(id)", token: first)
                #expect(api.object(after)["name"] as? String == api.object(won)["name"] as? String,
                        "round \(round): the product is the winner's")
                #expect(won.header("ETag") == after.header("ETag"), "the write's ETag is the next read's")
            }
        }
    }

    @Test func aStaleTagChangesNothingAndTheReadTagIsTheWriteTag() throws {
        try ServerProcess.run(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment) { server, api in
            let admin = try token(api, "root@example.com", "a very long secret")
            let id = try product(api, admin: admin, sku: "MUG-1")
            let stale = try #require(try api.call("GET", "/products/\(id)").header("ETag"))
            #expect(try api.call("PATCH", "/products/\(id)", json: #"{"stock":7}"#, token: admin).status == 200)
            let refused = try api.call("PATCH", "/products/\(id)", json: #"{"name":"Lost"}"#, token: admin,
                                       headers: ["If-Match": stale])
            #expect(refused.status == 412)
            #expect(code(api, refused) == "precondition_failed")
            #expect(api.object(try api.call("GET", "/products/\(id)"))["name"] as? String == "MUG-1")
            // An invalid patch is 422 whatever the tag: the request's own fault
            // comes before the precondition (schemathesis: a negative price with
            // a stale tag answered 412).
            let invalid = try api.call("PATCH", "/products/\(id)", json: #"{"price":{"amount":-1,"currency":"USD"}}"#,
                                       token: admin, headers: ["If-Match": stale])
            #expect(invalid.status == 422)
            #expect(code(api, invalid) == "validation_failed")
            // A weak tag never matches (13.1.1 uses the strong comparison).
            let current = try #require(try api.call("GET", "/products/\(id)").header("ETag"))
            #expect(try api.call("PATCH", "/products/\(id)", json: #"{"name":"Weak"}"#, token: admin,
                                 headers: ["If-Match": "W/" + current]).status == 412)
            // The tag of the gzip coding names the same state: accepted.
            let gzipped = try api.call("GET", "/products/\(id)", headers: ["Accept-Encoding": "gzip"])
            let gzipTag = try #require(gzipped.header("ETag"))
            let renamed = try api.call("PATCH", "/products/\(id)", json: #"{"name":"Renamed"}"#, token: admin,
                                       headers: ["If-Match": gzipTag])
            #expect(renamed.status == 200, "\(gzipTag)")
            // `*` holds for any current representation; a missing product is
            // still its 404 (13.2.1: the precondition is not evaluated).
            #expect(try api.call("PATCH", "/products/\(id)", json: #"{"name":"Star"}"#, token: admin,
                                 headers: ["If-Match": "*"]).status == 200)
            let missing = try api.call("PATCH", "/products/00000000-0000-4000-8000-000000000000", json: #"{"name":"X"}"#,
                                       token: admin, headers: ["If-Match": current])
            #expect(missing.status == 404)

            // The profile: GET /users/me's tag is what PATCH /users/me takes.
            #expect(try api.call("POST", "/users", json: #"{"name":"Sam","email":"sam@example.com","password":"correct horse battery"}"#).status == 202)
            let sam = try token(api, "sam@example.com", "correct horse battery")
            let me = try #require(try api.call("GET", "/users/me", token: sam).header("ETag"))
            let renamedMe = try api.call("PATCH", "/users/me", json: #"{"name":"Samuel"}"#, token: sam, headers: ["If-Match": me])
            #expect(renamedMe.status == 200)
            #expect(renamedMe.header("ETag") == (try api.call("GET", "/users/me", token: sam).header("ETag")))
            let staleMe = try api.call("PATCH", "/users/me", json: #"{"name":"Lost"}"#, token: sam, headers: ["If-Match": me])
            #expect(staleMe.status == 412)
            #expect(code(api, staleMe) == "precondition_failed")
            #expect(api.object(try api.call("GET", "/users/me", token: sam))["name"] as? String == "Samuel")

            // The cart: PUT and DELETE /cart/items/{id} with GET /cart's tag.
            let cartTag = try #require(try api.call("GET", "/cart", token: sam).header("ETag"))
            let added = try api.call("PUT", "/cart/items/\(id)", json: #"{"quantity":2}"#, token: sam, headers: ["If-Match": cartTag])
            #expect(added.status == 200)
            #expect(added.header("ETag") == (try api.call("GET", "/cart", token: sam).header("ETag")))
            let staleDelete = try api.call("DELETE", "/cart/items/\(id)", token: sam, headers: ["If-Match": cartTag])
            #expect(staleDelete.status == 412)
            #expect(code(api, staleDelete) == "precondition_failed")
            let lines = api.object(try api.call("GET", "/cart", token: sam))["items"] as? [[String: Any]] ?? []
            #expect(lines.count == 1, "the refused DELETE left the line")
            // A quantity out of range is its 422 whatever the tag (13.2.1:
            // the precondition is not evaluated for a request that would fail
            // without it). Before: 412, found by schemathesis.
            let outOfRange = try api.call("PUT", "/cart/items/\(id)", json: #"{"quantity":0}"#, token: sam,
                                          headers: ["If-Match": cartTag])
            #expect(outOfRange.status == 422)
            let removed = try api.call("DELETE", "/cart/items/\(id)", token: sam, headers: ["If-Match": try #require(added.header("ETag"))])
            #expect(removed.status == 200)
        }
    }

    @Test func twoSessionsChangingOneCartWithOneETagOneWins() async throws {
        try await ServerProcess.run(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment) { server, api in
            let admin = try token(api, "root@example.com", "a very long secret")
            let id = try product(api, admin: admin, sku: "PEN-1")
            #expect(try api.call("POST", "/users", json: #"{"name":"Sam","email":"sam@example.com","password":"correct horse battery"}"#).status == 202)
            let one = try token(api, "sam@example.com", "correct horse battery")
            let two = try token(api, "sam@example.com", "correct horse battery")
            for round in 0..<20 {
                let tag = try #require(try api.call("GET", "/cart", token: one).header("ETag"))
                let port = api.port
                async let a = API(port: port).call("PUT", "/cart/items/\(id)", json: #"{"quantity":\#(round % 40 + 1)}"#,
                                                   token: one, headers: ["If-Match": tag])
                async let b = API(port: port).call("PUT", "/cart/items/\(id)", json: #"{"quantity":\#(round % 40 + 50)}"#,
                                                   token: two, headers: ["If-Match": tag])
                let (left, right) = try await (a, b)
                #expect([left.status, right.status].sorted() == [200, 412], "round \(round): \(left.status) \(right.status)")
                let won = left.status == 200 ? left : right
                let lines = api.object(try api.call("GET", "/cart", token: one))["items"] as? [[String: Any]] ?? []
                let wonLines = api.object(won)["items"] as? [[String: Any]] ?? []
                #expect(lines.first?["quantity"] as? Int == wonLines.first?["quantity"] as? Int, "round \(round)")
            }
        }
    }
}

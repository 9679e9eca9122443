import Foundation
import Testing
import TestSupport

/// Users, sessions and the admin's catalogue over real HTTP against the
/// real binary and a real SQLite file, across a restart.
@Suite struct AccountFlowTests {
    struct API {
        let port: Int

        func call(_ method: String, _ path: String, json: String? = nil, token: String? = nil,
                  headers: [String: String] = [:]) throws -> RawClient.Response {
            let client = try RawClient(port: port)
            var head = "\(method) \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
            if let token { head += "Authorization: Bearer \(token)\r\n" }
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            let body = Array((json ?? "").utf8)
            if json != nil { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
            try client.send(Array((head + "\r\n").utf8) + body)
            return try client.readResponse()
        }

        func object(_ response: RawClient.Response) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        }
    }

    static let adminEnvironment = ["AXIOM_ADMIN_EMAIL": "root@example.com", "AXIOM_ADMIN_PASSWORD": "a very long secret"]

    @Test func registerSignInAdministerTheCatalogueAndSurviveARestart() throws {
        try ServerDatabase.withFresh { database in
            var server = ServerProcess(arguments: ["--port", "0"], environment: Self.adminEnvironment, database: database)
            try server.start()
            var api = API(port: server.port)

            // Registration: accepted, validated field by field, unique in any
            // case, and a taken email answered as a new one (before: 409
            // duplicate_email, an oracle of who has an account).
            let created = try api.call("POST", "/users", json: #"{"name":"Alice","email":"Alice@Example.com","password":"correct horse battery"}"#)
            #expect(created.status == 202)
            #expect(api.object(created)["status"] as? String == "accepted")
            let taken = try api.call("POST", "/users", json: #"{"name":"A","email":" alice@example.COM","password":"another long secret"}"#)
            #expect(taken.status == 202)
            #expect(taken.body == created.body)
            #expect(taken.header("Location") == nil && created.header("Location") == nil)
            let invalid = try api.call("POST", "/users", json: #"{"name":"","email":"nope","password":"short"}"#)
            #expect(invalid.status == 422)
            let fields = (api.object(invalid)["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(Set(fields ?? []) == ["name", "email", "password"])
            #expect(try api.call("POST", "/users", json: "{not json").status == 400)

            // Sign-in and the session's own routes.
            let wrong = try api.call("POST", "/sessions", json: #"{"email":"alice@example.com","password":"wrong password!"}"#)
            #expect(wrong.status == 401)
            #expect(api.object(wrong)["code"] as? String == "invalid_credentials")
            let signedIn = try api.call("POST", "/sessions", json: #"{"email":"alice@example.com","password":"correct horse battery"}"#)
            #expect(signedIn.status == 201)
            let token = try #require(api.object(signedIn)["token"] as? String)
            #expect(api.object(signedIn)["expires_at"] is String)
            let me = try api.call("GET", "/users/me", token: token)
            #expect(me.status == 200)
            let alice = api.object(me)
            #expect(alice["email"] as? String == "Alice@Example.com")
            #expect(alice["name"] as? String == "Alice", "the taken email's registration changed nothing")
            #expect(alice["role"] as? String == "customer")
            #expect(alice["password"] == nil && alice["password_hash"] == nil)
            #expect(try api.call("POST", "/sessions", json: #"{"email":"alice@example.com","password":"another long secret"}"#).status == 401)
            let anonymous = try api.call("GET", "/users/me")
            #expect(anonymous.status == 401)
            #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try api.call("GET", "/users/me", token: "not-a-real-token").status == 401)

            // The catalogue: customers may not write it, the configured admin may.
            let draft = #"{"sku":"MUG-1","name":"Mug","description":"A mug","price":{"amount":1999,"currency":"USD"},"stock":10}"#
            let refused = try api.call("POST", "/products", json: draft, token: token)
            #expect(refused.status == 403)
            let adminSession = try api.call("POST", "/sessions", json: #"{"email":"root@example.com","password":"a very long secret"}"#)
            let adminToken = try #require(api.object(adminSession)["token"] as? String)
            let product = try api.call("POST", "/products", json: draft, token: adminToken)
            #expect(product.status == 201)
            let productID = try #require(api.object(product)["id"] as? String)
            #expect(try api.call("POST", "/products", json: draft, token: adminToken).status == 409)
            let patched = try api.call("PATCH", "/products/\(productID)", json: #"{"price":{"amount":2499,"currency":"USD"}}"#,
                                       token: adminToken)
            #expect(patched.status == 200)
            let read = try api.call("GET", "/products/\(productID)")
            #expect(((api.object(read)["price"] as? [String: Any])?["amount"] as? Int) == 2499)

            // Logout revokes the token.
            #expect(try api.call("DELETE", "/sessions/current", token: token).status == 204)
            #expect(try api.call("GET", "/users/me", token: token).status == 401)

            // Everything acknowledged is there after a restart; so is the admin's session.
            server.signal(SIGTERM)
            #expect(server.waitForExit(seconds: 15) == 0)
            server = ServerProcess(arguments: ["--port", "0"], environment: Self.adminEnvironment, database: database)
            try server.start()
            defer { server.stop() }
            api = API(port: server.port)
            #expect(try api.call("GET", "/users/me", token: adminToken).status == 200)
            #expect(try api.call("GET", "/users/me", token: token).status == 401)
            let again = try api.call("GET", "/products/\(productID)")
            #expect(again.status == 200)
            #expect(((api.object(again)["price"] as? [String: Any])?["amount"] as? Int) == 2499)
            #expect(try api.call("POST", "/users", json: #"{"name":"Alice","email":"alice@example.com","password":"correct horse battery"}"#).status == 202)
        }
    }

    @Test func twoSessionsOfOneUserShareOneCartPricedFromTheCatalogue() throws {
        try ServerProcess.run(arguments: ["--port", "0"], environment: Self.adminEnvironment) { server, api in
            let adminToken = try #require(api.object(try api.call("POST", "/sessions",
                json: #"{"email":"root@example.com","password":"a very long secret"}"#))["token"] as? String)
            let product = try api.call("POST", "/products", json: #"{"sku":"PEN-1","name":"Pen","description":"","price":{"amount":250,"currency":"USD"},"stock":5}"#, token: adminToken)
            let productID = try #require(api.object(product)["id"] as? String)

            #expect(try api.call("POST", "/users", json: #"{"name":"Bo","email":"bo@example.com","password":"correct horse battery"}"#).status == 202)
            let login = #"{"email":"bo@example.com","password":"correct horse battery"}"#
            let phone = try #require(api.object(try api.call("POST", "/sessions", json: login))["token"] as? String)
            let laptop = try #require(api.object(try api.call("POST", "/sessions", json: login))["token"] as? String)
            #expect(phone != laptop)

            let set = try api.call("PUT", "/cart/items/\(productID)", json: #"{"quantity":3}"#, token: phone)
            #expect(set.status == 200)
            let seen = api.object(try api.call("GET", "/cart", token: laptop))
            let items = try #require(seen["items"] as? [[String: Any]])
            #expect(items.count == 1)
            #expect(items.first?["quantity"] as? Int == 3)
            #expect(((items.first?["unit_price"] as? [String: Any])?["amount"] as? Int) == 250)
            #expect(((seen["total"] as? [String: Any])?["amount"] as? Int) == 750)

            // A price change shows at the next read: carts hold ids, not prices.
            #expect(try api.call("PATCH", "/products/\(productID)", json: #"{"price":{"amount":300,"currency":"USD"}}"#, token: adminToken).status == 200)
            #expect(((api.object(try api.call("GET", "/cart", token: phone))["total"] as? [String: Any])?["amount"] as? Int) == 900)

            #expect(try api.call("PUT", "/cart/items/\(productID)", json: #"{"quantity":100}"#, token: phone).status == 422)
            #expect(try api.call("PUT", "/cart/items/\(UUID().uuidString.lowercased())", json: #"{"quantity":1}"#, token: phone).status == 404)
            #expect(try api.call("GET", "/cart").status == 401)
            let removed = api.object(try api.call("DELETE", "/cart/items/\(productID)", token: laptop))
            #expect((removed["items"] as? [Any])?.isEmpty == true)
            #expect(try api.call("PUT", "/cart/items/\(productID)", json: #"{"quantity":1}"#, token: laptop).status == 200)
            #expect(try api.call("DELETE", "/cart", token: phone).status == 204)
            #expect((api.object(try api.call("GET", "/cart", token: laptop))["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func adminsManageUsersAndSuspensionRevokesSessions() throws {
        try ServerProcess.run(arguments: ["--port", "0"], environment: Self.adminEnvironment) { server, api in
            let admin = try #require(api.object(try api.call("POST", "/sessions",
                json: #"{"email":"root@example.com","password":"a very long secret"}"#))["token"] as? String)
            #expect(try api.call("POST", "/users", json: #"{"name":"Carol","email":"carol@example.com","password":"correct horse battery"}"#).status == 202)
            #expect(try api.call("POST", "/users", json: #"{"name":"Dan","email":"dan@example.com","password":"correct horse battery"}"#).status == 202)
            let login = #"{"email":"carol@example.com","password":"correct horse battery"}"#
            let carolToken = try #require(api.object(try api.call("POST", "/sessions", json: login))["token"] as? String)
            let carolID = try api.userID(carolToken)
            let danToken = try #require(api.object(try api.call("POST", "/sessions",
                json: #"{"email":"dan@example.com","password":"correct horse battery"}"#))["token"] as? String)
            let danID = try api.userID(danToken)

            // Listing is for admins; a user reads only themselves.
            #expect(try api.call("GET", "/users", token: carolToken).status == 403)
            let page = api.object(try api.call("GET", "/users?limit=2", token: admin))
            #expect((page["items"] as? [Any])?.count == 2)
            let next = try #require(page["next_cursor"] as? String)
            let rest = api.object(try api.call("GET", "/users?limit=2&cursor=\(next)", token: admin))
            #expect((rest["items"] as? [Any])?.count == 1)
            #expect(rest["next_cursor"] is NSNull)
            #expect(try api.call("GET", "/users/\(carolID)", token: carolToken).status == 200)
            #expect(try api.call("GET", "/users/\(danID)", token: carolToken).status == 404)
            #expect(try api.call("PATCH", "/users/\(danID)", json: #"{"role":"admin"}"#, token: carolToken).status == 403)
            #expect(try api.call("PATCH", "/users/\(danID)", json: #"{"status":"frozen"}"#, token: admin).status == 422)

            // Suspension revokes Carol's token and blocks her sign-in, with the
            // answer a wrong password gets (before: 403 for the right one).
            let suspended = try api.call("PATCH", "/users/\(carolID)", json: #"{"status":"suspended"}"#, token: admin)
            #expect(suspended.status == 200)
            #expect(api.object(suspended)["status"] as? String == "suspended")
            #expect(try api.call("GET", "/users/me", token: carolToken).status == 401)
            let refused = try api.call("POST", "/sessions", json: login)
            let wrong = try api.call("POST", "/sessions", json: login.replacingOccurrences(of: "\"password\":\"", with: "\"password\":\"x"))
            for answer in [refused, wrong] {
                #expect(answer.status == 401)
                #expect(api.object(answer)["code"] as? String == "invalid_credentials")
                #expect(answer.header("WWW-Authenticate") == refused.header("WWW-Authenticate"))
            }
            #expect(api.object(refused)["detail"] as? String == api.object(wrong)["detail"] as? String)
            #expect(try api.call("PATCH", "/users/\(carolID)", json: #"{"status":"active"}"#, token: admin).status == 200)
            #expect(try api.call("POST", "/sessions", json: login).status == 201)
        }
    }

    @Test func usersChangeTheirOwnProfileAndPasswordWithTheCurrentOne() throws {
        try ServerProcess.run(arguments: ["--port", "0"]) { server, api in
            #expect(try api.call("POST", "/users", json: #"{"name":"Eve","email":"eve@example.com","password":"correct horse battery"}"#).status == 202)
            #expect(try api.call("POST", "/users", json: #"{"name":"Fay","email":"fay@example.com","password":"correct horse battery"}"#).status == 202)
            let token = try #require(api.object(try api.call("POST", "/sessions",
                json: #"{"email":"eve@example.com","password":"correct horse battery"}"#))["token"] as? String)
            let renamed = try api.call("PATCH", "/users/me", json: #"{"name":"Eve Adams"}"#, token: token)
            #expect(renamed.status == 200)
            #expect(api.object(renamed)["name"] as? String == "Eve Adams")
            #expect(try api.call("PATCH", "/users/me", json: #"{"email":"FAY@example.com","current_password":"correct horse battery"}"#, token: token).status == 409)
            #expect(try api.call("PATCH", "/users/me", json: #"{"password":"a brand new secret"}"#, token: token).status == 422)
            #expect(try api.call("PATCH", "/users/me", json: #"{"password":"a brand new secret","current_password":"wrong one!!"}"#, token: token).status == 401)
            #expect(try api.call("PATCH", "/users/me", json: #"{"password":"a brand new secret","current_password":"correct horse battery"}"#, token: token).status == 200)
            #expect(try api.call("POST", "/sessions", json: #"{"email":"eve@example.com","password":"correct horse battery"}"#).status == 401)
            #expect(try api.call("POST", "/sessions", json: #"{"email":"eve@example.com","password":"a brand new secret"}"#).status == 201)
        }
    }
}

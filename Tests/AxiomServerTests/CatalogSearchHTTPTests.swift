import Foundation
import Testing
import TestSupport

/// `GET /products` and `GET /products/{id}` against the real binary with a
/// catalogue working set of two products: search ranked and escaped, pages
/// by cursor, bounds as 422 problems, every product read through SQLite,
/// across a restart.
@Suite struct CatalogSearchHTTPTests {
    typealias API = AccountFlowTests.API

    private func names(_ api: API, _ query: String) throws -> (status: Int, names: [String], next: String?) {
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let response = try api.call("GET", "/products?q=\(encoded)&limit=2")
        let object = api.object(response)
        let items = object["items"] as? [[String: Any]] ?? []
        return (response.status, items.compactMap { $0["name"] as? String }, object["next_cursor"] as? String)
    }

    @Test func searchIsRankedEscapedPagedAndBoundedWithAWorkingSetOfTwo() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-search-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = ServerDatabase.fresh(in: directory)
        let arguments = ["--port", "0", "--catalog-cache-entries", "2"]
        var server = ServerProcess(arguments: arguments, environment: AccountFlowTests.adminEnvironment, database: database)
        try server.start()
        var api = API(port: server.port)
        let admin = try #require(api.object(try api.call("POST", "/sessions",
            json: #"{"email":"root@example.com","password":"a very long secret"}"#))["token"] as? String)
        var ids: [String: String] = [:]
        for (sku, name, description) in [("D-1", "Oak desk", "With a brass handle"), ("L-1", "Brass lamp", "Bright"),
                                         ("K-1", "Brass kettle", "Whistles"), ("M-1", #"Mug \"NEAR\" (blue)"#, "Tea")] {
            let created = try api.call("POST", "/products", json: """
                {"sku":"\(sku)","name":"\(name)","description":"\(description)","price":{"amount":100,"currency":"USD"},"stock":3}
                """, token: admin)
            #expect(created.status == 201)
            ids[sku] = try #require(api.object(created)["id"] as? String)
        }

        let first = try names(api, "bra")
        #expect(first.status == 200 && first.names.count == 2 && Set(first.names) == ["Brass lamp", "Brass kettle"])
        let next = try #require(first.next)
        let rest = api.object(try api.call("GET", "/products?q=bra&limit=2&cursor=\(next)"))
        #expect((rest["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Oak desk"])
        #expect(rest["next_cursor"] is NSNull)
        #expect(try names(api, #""NEAR" (blue"#).names == [#"Mug "NEAR" (blue)"#])
        #expect(try names(api, "NEAR(mug tea)").names.isEmpty)

        let tooMany = try api.call("GET", "/products?q=a+b+c+d+e+f+g+h+i")
        #expect(tooMany.status == 422)
        #expect(api.object(tooMany)["code"] as? String == "validation_failed")
        let failing = (api.object(tooMany)["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
        #expect(failing == ["q"])
        let listCursor = try #require(api.object(try api.call("GET", "/products?limit=1"))["next_cursor"] as? String)
        #expect(try api.call("GET", "/products?q=brass&cursor=\(listCursor)").status == 422)

        // Four products, a working set of two: every read is right, misses come from SQLite.
        for _ in 0 ..< 2 {
            for (sku, id) in ids {
                let read = try api.call("GET", "/products/\(id)")
                #expect(read.status == 200 && api.object(read)["sku"] as? String == sku)
            }
        }
        #expect(try api.call("PATCH", "/products/\(try #require(ids["L-1"]))", json: #"{"name":"Copper lamp"}"#,
                             token: admin).status == 200)
        #expect(try names(api, "copper").names == ["Copper lamp"])

        server.stop()
        server = ServerProcess(arguments: arguments, environment: AccountFlowTests.adminEnvironment, database: database)
        try server.start()
        defer { server.stop() }
        api = API(port: server.port)
        #expect(api.object(try api.call("GET", "/products/\(try #require(ids["L-1"]))"))["name"] as? String == "Copper lamp")
        #expect(Set(try names(api, "brass").names) == ["Brass kettle", "Oak desk"])
    }

    /// The issue's case: "Mug" added after "Mug 2" … "Mug 5" came last for
    /// `q=mug` (equal scores tie oldest first), and `q=mugs` found nothing.
    @Test func anExactNameRanksFirstAndAPluralFindsTheSingular() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-search-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try ServerProcess.run(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment,
                              database: .fresh(in: directory)) { server, api in
            let admin = try api.token("root@example.com", "a very long secret")
            for (index, name) in ["Mug 2", "Mug 3", "Mug 4", "Mug 5", "Mug", "Tea candies"].enumerated() {
                let created = try api.call("POST", "/products", json: """
                    {"sku":"SM-\(index)","name":"\(name)","description":"","price":{"amount":100,"currency":"USD"},"stock":3}
                    """, token: admin)
                #expect(created.status == 201)
            }
            func all(_ query: String) throws -> [String] {
                let response = try api.call("GET", "/products?q=\(query)&limit=10")
                #expect(response.status == 200)
                return (api.object(response)["items"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            }
            let mugs = ["Mug", "Mug 2", "Mug 3", "Mug 4", "Mug 5"]
            #expect(try all("mug") == mugs)
            #expect(try all("MUG").first == "Mug")
            #expect(try names(api, "mug").names == ["Mug", "Mug 2"])
            #expect(try all("mugs").sorted() == mugs)
            #expect(try all("tea+candy") == ["Tea candies"])
            #expect(try all("candy") == ["Tea candies"])
        }
    }
}

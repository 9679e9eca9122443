import Foundation
import Testing
import TestSupport

/// What operators use, against the real binary: discovery, probes, metrics
/// (checked by a real Prometheus parser), access and lifecycle logs,
/// introspection, and the behaviour while storage is unavailable.
@Suite struct OperationsTests {
    typealias API = AccountFlowTests.API
    static let adminEnvironment = AccountFlowTests.adminEnvironment
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func signIn(_ api: API, email: String, password: String) throws -> String {
        let response = try api.call("POST", "/sessions", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        #expect(response.status == 201)
        return try #require(api.object(response)["token"] as? String)
    }

    private func register(_ api: API, _ email: String) throws -> RawClient.Response {
        try api.call("POST", "/users", json: #"{"name":"N","email":"\#(email)","password":"correct horse battery"}"#)
    }

    @Test func indexAndDocumentLeadANewcomerAround() throws {
        try ServerProcess.run(arguments: ["--port", "0"]) { server, api in
            let index = try api.call("GET", "/")
            #expect(index.status == 200)
            let links = try #require(api.object(index)["links"] as? [String: String])
            #expect(links["openapi"] == "/openapi.yaml")
            #expect(links["ready"] == "/ready")
            #expect(links["metrics"] == "/metrics")
            #expect(api.object(index)["service"] as? String == "axiom-server")

            let document = try api.call("GET", "/openapi.yaml")
            #expect(document.status == 200)
            #expect(document.header("Content-Type") == "application/yaml; charset=utf-8")
            // The embedded copy is the repository's file, byte for byte.
            let file = try Data(contentsOf: Self.root.appendingPathComponent("openapi.yaml"))
            #expect(Data(document.body) == file, "embedded document differs: run scripts/embed-openapi.sh")

            let ready = try api.call("GET", "/ready")
            #expect(ready.status == 200)
            #expect(api.object(ready)["status"] as? String == "ready")
            #expect(try api.call("GET", "/health").status == 200)
        }
    }

    @Test func metricsParseWithPrometheusParserAndMoveWithRequests() throws {
        try ServerProcess.run(arguments: ["--port", "0"]) { server, api in
            let first = try api.call("GET", "/metrics")
            #expect(first.status == 200)
            #expect(first.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            let before = try PythonTool.parsePrometheus(first.text)

            for _ in 0..<3 { #expect(try api.call("GET", "/products?limit=5").status == 200) }
            // Two reads of a product that is not there: two misses of the catalogue's working set.
            for _ in 0..<2 { #expect(try api.call("GET", "/products/6f1c2a40-0000-4000-8000-00000000000a").status == 404) }
            #expect(try api.call("GET", "/no/such/route").status == 404)
            #expect(try register(api, "metrics@example.com").status == 202)
            let after = try PythonTool.parsePrometheus(try api.call("GET", "/metrics").text)

            let products = #"axiom_http_requests_total{method="GET",route="/products",status="200"}"#
            #expect((after.samples[products] ?? 0) - (before.samples[products] ?? 0) == 3)
            #expect(after.samples[#"axiom_http_requests_total{method="GET",route="",status="404"}"#] == 1)
            #expect(after.samples[#"axiom_http_requests_total{method="POST",route="/users",status="202"}"#] == 1)
            #expect(after.samples[#"axiom_http_request_duration_seconds_count{method="GET",route="/products"}"#] == 3)
            #expect(after.types["axiom_http_request_duration_seconds"] == "histogram")
            #expect(after.types["axiom_storage_batch_size"] == "histogram")
            // The registration was one durable write, committed in a batch.
            #expect((after.samples["axiom_storage_writes_total{outcome=\"acknowledged\"}"] ?? 0)
                    > (before.samples["axiom_storage_writes_total{outcome=\"acknowledged\"}"] ?? 0))
            #expect((after.samples["axiom_storage_batch_size_count{}"] ?? 0) > (before.samples["axiom_storage_batch_size_count{}"] ?? 0))
            #expect((after.samples[#"axiom_client_actions_total{client="UserClient"}"#] ?? 0)
                    > (before.samples[#"axiom_client_actions_total{client="UserClient"}"#] ?? 0))
            #expect((after.samples[#"axiom_password_operations_total{kind="hash"}"#] ?? 0) >= 1)
            #expect(after.samples[#"axiom_capability_available{capability="\#(ServerDatabase.storageName)"}"#] == 1)
            #expect((after.samples["axiom_http_open_connections{}"] ?? 0) >= 1)
            #expect(after.samples["axiom_sessions_live{}"] != nil)
            let productMisses = #"axiom_working_set_lookups_total{result="miss",set="products"}"#
            #expect((after.samples[productMisses] ?? 0) - (before.samples[productMisses] ?? 0) == 2)
            #expect(after.samples[#"axiom_working_set_lookups_total{result="hit",set="products"}"#] == 0)
            #expect(after.samples[#"axiom_working_set_capacity{set="products"}"#] == 100_000)
            #expect(after.samples[#"axiom_working_set_entries{set="products"}"#] == 0)
            for set in ["users", "sessions", "verified_tokens", "carts"] {
                #expect(after.samples[#"axiom_working_set_capacity{set="\#(set)"}"#] != nil, "no working set \(set)")
            }
            #expect(after.types["axiom_working_set_lookups"] == "counter")
            #expect(after.samples["axiom_contexts_live{}"] ?? 0 >= 1)
            #expect((after.samples["process_resident_memory_bytes{}"] ?? 0) > 1_000_000)
            #expect((after.samples["process_open_fds{}"] ?? 0) > 3)
        }
    }

    @Test func accessLinesAreJSONWithARouteASessionHashAndNoSecrets() throws {
        let server = ServerProcess(arguments: ["--port", "0"], environment: Self.adminEnvironment)
        try server.start()
        let api = API(port: server.port)
        let token = try signIn(api, email: "root@example.com", password: "a very long secret")
        let read = try api.call("GET", "/users/me", token: token, headers: ["X-Request-Id": "trace-me-1"])
        #expect(read.status == 200)
        #expect(read.header("X-Request-Id") == "trace-me-1")
        #expect(try api.call("GET", "/products/not-a-product").status == 404)
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 20) == 0)
        defer { server.stop() }

        let lines = server.log
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == lines.count, "every log line is one JSON object")
        let access = try #require(objects.first { $0["request_id"] as? String == "trace-me-1" })
        #expect(access["event"] as? String == "request")
        #expect(access["method"] as? String == "GET")
        #expect(access["route"] as? String == "/users/me")
        #expect(access["status"] as? Int == 200)
        #expect((access["bytes"] as? Int ?? 0) == read.body.count)
        #expect(access["duration_us"] is Int)
        #expect(access["time"] is String)
        #expect(access["session"] as? String == String(try PythonTool.sha256Hex(token).prefix(16)))
        let notFound = try #require(objects.first { $0["route"] as? String == "/products/{id}" })
        #expect(notFound["status"] as? Int == 404)
        #expect(notFound["session"] == nil)
        let signInLine = try #require(objects.first { $0["route"] as? String == "/sessions" })
        #expect(signInLine["status"] as? Int == 201)
        // Never a token or a password, anywhere in the log.
        #expect(!lines.contains { $0.contains(token) || $0.contains("a very long secret") })
        // Lifecycle: migrations, listening, shutdown, in order.
        let events = objects.compactMap { $0["event"] as? String }
        for event in ["starting", "storage_opened", "listening", "shutdown_started", "shutdown_complete", "stopped"] {
            #expect(events.contains(event), "missing lifecycle event \(event)")
        }
        #expect(objects.first { $0["event"] as? String == "storage_opened" }?["migrations"] is Int)
        #expect(events.firstIndex(of: "listening")! < events.firstIndex(of: "stopped")!)
    }

    @Test func componentsAreForAdminsAndDescribeTheRuntime() throws {
        try ServerProcess.run(arguments: ["--port", "0"], environment: Self.adminEnvironment) { server, api in
            #expect(try api.call("GET", "/axiom/components").status == 401)
            #expect(try register(api, "customer@example.com").status == 202)
            let customer = try signIn(api, email: "customer@example.com", password: "correct horse battery")
            let refused = try api.call("GET", "/axiom/components", token: customer)
            #expect(refused.status == 403)
            #expect(api.object(refused)["code"] as? String == "forbidden")

            let admin = try signIn(api, email: "root@example.com", password: "a very long secret")
            let response = try api.call("GET", "/axiom/components", token: admin)
            #expect(response.status == 200)
            let document = api.object(response)
            let components = try #require(document["components"] as? [[String: Any]])
            let byType = Dictionary(components.compactMap { c in (c["type"] as? String).map { ($0, c) } }) { a, _ in a }
            let storage = "Capabilities.\(ServerDatabase.storageName)"
            #expect(byType[storage]?["kind"] as? String == "capability")
            #expect(byType[storage]?["lifetime"] as? String == "transient")
            let cart = try #require(byType["CartClient.CartClient"])
            #expect(cart["lifetime"] as? String == "singleton")
            #expect((cart["dependencies"] as? [String])?.contains(storage) == true)
            #expect(cart["instances_created"] as? Int == 1)
            // Two signed-in sessions: each has its own root context; only the
            // admin's has made an admin context (on this request).
            let session = try #require(byType["Contexts.SessionContext"])
            #expect(session["instances_live"] as? Int == 2)
            #expect(byType["Contexts.AdminContext"]?["instances_live"] as? Int == 1)
            #expect(byType["Contexts.CartContext"]?["instances_live"] as? Int == 0)
            // Every context type, with the context types it may make.
            #expect((session["downstream"] as? [String]) == ["Contexts.AccountDeletionContext", "Contexts.AdminContext",
                                                              "Contexts.CartContext",
                                                              "Contexts.CheckoutContext", "Contexts.LiveUpdatesContext",
                                                              "Contexts.OrdersContext", "Contexts.ProfileContext",
                                                              "Contexts.WishlistContext"])
            #expect((byType["Contexts.CheckoutContext"]?["downstream"] as? [String])
                    == ["Contexts.CartContext", "Contexts.OrdersContext"])
            #expect(byType["Contexts.StorefrontContext"]?["instances_live"] as? Int == 1)
            #expect(byType["Contexts.RegistrationContext"]?["instances_live"] as? Int == 1)
            #expect(byType["CartRoutes"]?["dependencies"] as? [String] == ["Contexts.CartContext"])
            #expect(document["live_sessions"] as? Int == 2)
            let validation = try #require(document["validation"] as? [String: Any])
            #expect(validation["passed"] as? Bool == true)
            #expect(((validation["checks"] as? [[String: Any]])?.count ?? 0) >= 5)
            #expect((document["capabilities"] as? [[String: Any]])?.allSatisfy { $0["available"] as? Bool == true } == true)
        }
    }

    // The SQLite file's directory moved away and back; PostgreSQL stopped
    // and started is PostgresOutageTests.
    @Test(.enabled(if: ServerDatabase.sqliteOnly))
    func writesGet503WhileStorageIsGoneReadsAndProbesGoOnAndItRecoversOnItsOwn() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-outage-\(UUID().uuidString)")
        let data = root.appendingPathComponent("data"), moved = root.appendingPathComponent("data.away")
        defer { try? FileManager.default.removeItem(at: root) }
        let database = data.appendingPathComponent("axiom.db").path
        var server = ServerProcess(arguments: ["--port", "0", "--database", database, "--storage-probe-interval", "0.1"],
                                   environment: Self.adminEnvironment)
        try server.start()
        var api = API(port: server.port)
        let admin = try signIn(api, email: "root@example.com", password: "a very long secret")
        let created = try api.call("POST", "/products", json: #"{"sku":"OUT-1","name":"Lamp","description":"","price":{"amount":500,"currency":"USD"},"stock":3}"#, token: admin)
        #expect(created.status == 201)
        let productID = try #require(api.object(created)["id"] as? String)

        // The data directory disappears (unmounted, moved away).
        try FileManager.default.moveItem(at: data, to: moved)
        let refused = try register(api, "during@example.com")
        #expect(refused.status == 503)
        #expect(api.object(refused)["code"] as? String == "storage_unavailable")
        #expect(refused.header("Retry-After") != nil)
        #expect(try api.call("GET", "/products/\(productID)").status == 200)
        #expect(try api.call("GET", "/health").status == 200)
        let notReady = try api.call("GET", "/ready")
        #expect(notReady.status == 503)
        #expect((api.object(notReady)["reasons"] as? [String])?.contains("capability SQLiteStorage is unavailable") == true)
        let metrics = try PythonTool.parsePrometheus(try api.call("GET", "/metrics").text)
        #expect(metrics.samples[#"axiom_capability_available{capability="SQLiteStorage"}"#] == 0)

        // It comes back: the service notices by itself (bounded wait).
        try FileManager.default.moveItem(at: moved, to: data)
        var readyAgain = false
        for _ in 0..<200 where !readyAgain {
            readyAgain = try api.call("GET", "/ready").status == 200
            if !readyAgain { usleep(50_000) }
        }
        #expect(readyAgain)
        #expect(try register(api, "after@example.com").status == 202)
        #expect(server.log.contains { $0.contains(#""event":"capability_unavailable""#) })
        #expect(server.log.contains { $0.contains(#""event":"capability_available""#) })

        // After a restart on the same file: the acknowledged write is there,
        // the refused one is not.
        server.signal(SIGTERM)
        #expect(server.waitForExit(seconds: 20) == 0)
        server = ServerProcess(arguments: ["--port", "0", "--database", database])
        try server.start()
        defer { server.stop() }
        api = API(port: server.port)
        _ = try signIn(api, email: "after@example.com", password: "correct horse battery")
        #expect(try register(api, "during@example.com").status == 202)
    }
}

import Foundation
import Testing
import TestSupport

/// PostgreSQL stopped under a running server, and started again: writes
/// and reads that need the database answer 503 `storage_unavailable`,
/// `/ready` 503 (the recovery loop's probe notices without any request),
/// `/health` stays 200 (the process is fine), and when the database is
/// back the server recovers on its own, with what it acknowledged before.
/// On a throwaway cluster of its own (`scripts/postgres.sh` with its own
/// state directory and port): the shared test cluster is never stopped.
/// Runs where the PostgreSQL tests run (AXIOM_TEST_DATABASE_URL set), once.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AXIOM_TEST_DATABASE_URL"]?.isEmpty == false
                  && ServerDatabase.sqliteOnly))
struct PostgresOutageTests {
    typealias API = AccountFlowTests.API

    /// `scripts/postgres.sh` on this test's own cluster.
    struct Cluster {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-pg-outage-\(UUID().uuidString)")
        let port: Int

        @discardableResult
        func run(_ command: String) throws -> String {
            let process = Process()
            let output = Pipe()
            process.executableURL = OperationsTests.root.appendingPathComponent("scripts/postgres.sh")
            process.arguments = [command]
            process.environment = ProcessInfo.processInfo.environment.merging(
                ["AXIOM_PG_STATE": state.path, "PGPORT": String(port)]) { _, new in new }
            process.standardOutput = output
            try process.run()
            process.waitUntilExit()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            guard process.terminationStatus == 0 else { throw ClusterError.failed(command, process.terminationStatus) }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        enum ClusterError: Error { case failed(String, Int32) }
    }

    /// Polls `path` until it answers `status` (bounded: a hang guard, not a
    /// timing assertion).
    func poll(_ api: API, _ path: String, status: Int) throws -> Bool {
        for _ in 0..<300 {
            if try api.call("GET", path).status == status { return true }
            usleep(50_000)
        }
        return false
    }

    @Test func postgresStoppedMeans503AndItRecoversOnItsOwnWhenBack() throws {
        let cluster = Cluster(port: try ServerProcess.freePort())
        let url = try cluster.run("start")
        defer { _ = try? cluster.run("stop") }
        try ServerProcess.run(arguments: ["--port", "0", "--storage-probe-interval", "0.1"],
                              environment: AccountFlowTests.adminEnvironment,
                              database: ServerDatabase(arguments: ["--database-url", url], setupError: nil)) { server, api in
            let admin = try api.token("root@example.com", "a very long secret")
            let product = #"{"sku":"PG-1","name":"Lamp","description":"","price":{"amount":500,"currency":"USD"},"stock":3}"#
            let created = try api.call("POST", "/products", json: product, token: admin)
            #expect(created.status == 201)
            let productID = try #require(api.object(created)["id"] as? String)
            #expect(try api.call("GET", "/ready").status == 200)

            try cluster.run("halt")
            // No request needed: the recovery loop's probe finds it gone.
            #expect(try poll(api, "/ready", status: 503))
            let notReady = try api.call("GET", "/ready")
            #expect((api.object(notReady)["reasons"] as? [String])?.contains("capability PostgresStorage is unavailable") == true)
            #expect(try api.call("GET", "/health").status == 200)
            let refused = try api.call("POST", "/products", json: product.replacingOccurrences(of: "PG-1", with: "PG-2"),
                                       token: admin)
            #expect(refused.status == 503)
            #expect(api.object(refused)["code"] as? String == "storage_unavailable")
            let list = try api.call("GET", "/products?q=lamp")
            #expect(list.status == 503)
            #expect(api.object(list)["code"] as? String == "storage_unavailable")

            try cluster.run("resume")
            #expect(try poll(api, "/ready", status: 200))
            let after = try api.call("POST", "/products", json: product.replacingOccurrences(of: "PG-1", with: "PG-3"),
                                     token: admin)
            #expect(after.status == 201)
            let found = api.object(try api.call("GET", "/products?q=lamp"))["items"] as? [[String: Any]] ?? []
            #expect(Set(found.compactMap { $0["sku"] as? String }) == ["PG-1", "PG-3"])
            #expect(try api.call("GET", "/products/\(productID)").status == 200)
            #expect(server.log.contains { $0.contains(#""event":"capability_unavailable""#) })
            #expect(server.log.contains { $0.contains(#""event":"capability_available""#) })
        }
    }
}

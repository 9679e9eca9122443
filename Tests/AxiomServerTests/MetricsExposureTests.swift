import Foundation
import Testing
import TestSupport

/// `/metrics` against the real binary: what anyone can send must not grow
/// it, and `metrics_token` keeps it from anonymous readers.
@Suite struct MetricsExposureTests {
    typealias API = AccountFlowTests.API

    /// The series of the exposition (sample names with labels), without values.
    private func series(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            line.lastIndex(of: " ").map { String(line[..<$0]) }
        })
    }

    @Test func oddMethodsAndPathsAddNoSeries() throws {
        try ServerProcess.run(arguments: ["--port", "0"]) { server, api in
            // One of each kind first, so the series they belong to exist.
            #expect(try api.call("BREW", "/pot").status == 501)
            #expect(try api.call("GET", "/no/such/thing").status == 404)
            _ = try api.call("GET", "/metrics")  // the scrape's own series
            let before = try api.call("GET", "/metrics").text
            #expect(before.contains(#"axiom_http_requests_total{route="",method="_OTHER",status="501"} 1"#))

            // The attack, scaled down: random 1,000-character methods and random paths.
            var generator = SystemRandomNumberGenerator()
            let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
            let client = try RawClient(port: server.port)
            for index in 0..<300 {
                let method = String((0..<1_000).map { _ in letters.randomElement(using: &generator)! })
                try client.send("\(method) /x\(index)/\(UInt64.random(in: 0...UInt64.max)) HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse().status == 501)
                try client.send("GET /p/\(index)?q=\(index) HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse().status == 404)
            }
            let after = try api.call("GET", "/metrics").text
            #expect(series(after).symmetricDifference(series(before)).isEmpty)
            #expect(after.contains(#"axiom_http_requests_total{route="",method="_OTHER",status="501"} 301"#))
            // Values grow by a few digits; nothing else does.
            #expect(after.utf8.count < before.utf8.count + 1_024)
        }
    }

    /// Without `metrics_token`, on the main listener, /metrics is anyone's:
    /// start-up says so once as a warning; with the token, or on `ops_port`,
    /// it does not.
    @Test func startUpWarnsOnceThatMetricsArePublicWithoutAToken() throws {
        func warnings(_ environment: [String: String]) throws -> [String] {
            let server = ServerProcess(arguments: ["--port", "0"], environment: environment)
            try server.start()
            defer { server.stop() }
            if environment.isEmpty { #expect(try API(port: server.port).call("GET", "/metrics").status == 200) }
            return server.log.filter { $0.contains(#""event":"metrics_public""#) }
        }
        let open = try warnings([:])
        #expect(open.count == 1)
        #expect(open.first?.contains(#""level":"warning""#) == true)
        #expect(try warnings(["AXIOM_METRICS_TOKEN": "ops-token-0123456789"]).isEmpty)
        #expect(try warnings(["AXIOM_OPS_PORT": "0"]).isEmpty)
    }

    @Test func metricsTokenKeepsTheExpositionFromAnonymousReaders() throws {
        let token = "ops-token-0123456789"
        try ServerProcess.run(arguments: ["--port", "0"], environment: ["AXIOM_METRICS_TOKEN": token]) { server, api in

            let anonymous = try api.call("GET", "/metrics")
            #expect(anonymous.status == 401)
            #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(anonymous.text.contains(#""code":"unauthorized""#))
            #expect(!anonymous.text.contains("axiom_build_info"))
            for wrong in ["ops-token-012345678", "ops-token-01234567890", "ops-token-0123456788"] {
                #expect(try api.call("GET", "/metrics", token: wrong).status == 401)
            }
            let scraped = try api.call("GET", "/metrics", token: token)
            #expect(scraped.status == 200)
            #expect(scraped.text.contains("axiom_build_info"))
            #expect(try api.call("GET", "/health").status == 200)
        }
    }
}

extension MetricsExposureTests {
    @Test func withAnOpsPortTheOperationsRoutesLeaveTheMainListener() throws {
        let opsPort = try ServerProcess.freePort()
        let server = ServerProcess(arguments: ["--port", "0", "--ops-port", String(opsPort)])
        try server.start()
        defer { server.stop() }
        let main = API(port: server.port)
        let ops = API(port: opsPort)
        #expect(try main.call("GET", "/metrics").status == 404)
        #expect(try main.call("GET", "/axiom/components").status == 404)
        #expect(try main.call("GET", "/health").status == 200)

        let scraped = try ops.call("GET", "/metrics")
        #expect(scraped.status == 200)
        #expect(scraped.text.contains("axiom_build_info"))
        #expect(try ops.call("GET", "/axiom/components").status == 401)
        #expect(try ops.call("GET", "/health").status == 200)
        #expect(try ops.call("GET", "/ready").status == 200)
        #expect(try ops.call("GET", "/products").status == 404)
    }
}

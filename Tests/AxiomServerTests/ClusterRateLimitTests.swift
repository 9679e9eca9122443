import Foundation
import Testing
import TestSupport

/// The per-address limit counted across processes on one PostgreSQL
/// database (`rate_limit_scope: cluster`, the default there): two servers
/// on one schema admit one address's limit once, within the stated
/// tolerance, not once each; with the database stopped each counts alone
/// again, neither without a limit nor refusing everything.
@Suite struct ClusterRateLimitTests {
    typealias API = AccountFlowTests.API
    static let burst = 100
    /// 1 a second, the smallest `rate_limit_per_second`: the bound below
    /// adds what refilled while the test ran.
    static let arguments = ["--port", "0", "--rate-limit-per-second", "1", "--rate-limit-burst", String(burst)]

    /// Rounds of `perRound` `GET /` on each server in turn, a pause between
    /// rounds for the leases to come, until three rounds admit at most one
    /// (the refill); returns the requests admitted and the 429s.
    static func drain(_ apis: [API], perRound: Int = 10) throws -> (admitted: Int, refused: Int) {
        var admitted = 0
        var refused = 0
        var quietRounds = 0
        for _ in 0..<300 where quietRounds < 3 {
            var round = 0
            for _ in 0..<perRound {
                for api in apis {
                    let response = try api.call("GET", "/")
                    if response.status == 200 { round += 1 } else if response.status == 429 { refused += 1 }
                }
            }
            admitted += round
            quietRounds = round <= 1 ? quietRounds + 1 : 0
            usleep(100_000)
        }
        return (admitted, refused)
    }

    static func metric(_ api: API, _ series: String) throws -> Double? {
        let text = try api.call("GET", "/metrics").text
        return text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
    }

    @Test(.enabled(if: ServerDatabase.onPostgres))
    func twoServersOnOneDatabaseAdmitAnAddressesLimitOnceWithinTheTolerance() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-crl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = ServerDatabase.fresh(in: directory)
        let a = ServerProcess(arguments: Self.arguments, database: database)
        try a.start()
        defer { a.stop() }
        let b = ServerProcess(arguments: Self.arguments, database: database)
        try b.start()
        defer { b.stop() }
        let apis = [API(port: a.port), API(port: b.port)]
        let started = Date()
        let (admitted, refused) = try Self.drain(apis)
        let refilled = Int(Date().timeIntervalSince(started).rounded(.up))
        // Leases of burst / 10 = 10 tokens; loops' leases of 1 token hold
        // none back: processes × 2 × lease = 40.
        let tolerance = 2 * 2 * 10
        #expect(admitted >= Self.burst - tolerance)
        #expect(admitted <= Self.burst + tolerance + refilled, "refilled \(refilled)")
        #expect(refused > 0)
        for api in apis {
            #expect(try Self.metric(api, #"axiom_http_rate_limit_shared{policy="per-address"}"#) == 1)
            #expect(try Self.metric(api, #"axiom_http_rate_limit_leases_total{policy="per-address"}"#) ?? 0 >= 1)
            #expect(try Self.metric(api, #"axiom_http_rate_limit_shared_failures_total{policy="per-address"}"#) == 0)
        }
    }

    /// One user's bucket on both servers: burst 30 at 1/s, leases of 3
    /// (the per-user limit is taken per request, no loop leases): at most
    /// 30 + 2 × 2 × 3 and the refill.
    @Test(.enabled(if: ServerDatabase.onPostgres))
    func twoServersOnOneDatabaseAdmitAUsersLimitOnceWithinTheTolerance() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-crl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = ServerDatabase.fresh(in: directory)
        let arguments = ["--port", "0", "--rate-limit-user-per-second", "1", "--rate-limit-user-burst", "30"]
        let a = ServerProcess(arguments: arguments, database: database)
        try a.start()
        defer { a.stop() }
        let b = ServerProcess(arguments: arguments, database: database)
        try b.start()
        defer { b.stop() }
        let apis = [API(port: a.port), API(port: b.port)]
        #expect(try apis[0].call("POST", "/users", json: #"{"name":"C","email":"c@example.com","password":"correct horse battery"}"#).status == 202)
        let token = try apis[0].token("c@example.com", "correct horse battery")
        let started = Date()
        var admitted = 0
        var quietRounds = 0
        for _ in 0..<300 where quietRounds < 3 {
            var round = 0
            for _ in 0..<5 {
                for api in apis where try api.call("GET", "/cart", token: token).status == 200 { round += 1 }
            }
            admitted += round
            quietRounds = round <= 1 ? quietRounds + 1 : 0
            usleep(100_000)
        }
        let refilled = Int(Date().timeIntervalSince(started).rounded(.up))
        #expect(admitted >= 30 - 12)
        #expect(admitted <= 30 + 12 + refilled, "refilled \(refilled)")
        #expect(try Self.metric(apis[1], #"axiom_http_rate_limit_shared{policy="per-user"}"#) == 1)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["AXIOM_TEST_DATABASE_URL"]?.isEmpty == false
                   && ServerDatabase.sqliteOnly))
    func withTheDatabaseStoppedEachServerCountsAloneNeverWithoutALimit() throws {
        let cluster = PostgresOutageTests.Cluster(port: try ServerProcess.freePort())
        let url = try cluster.run("start")
        defer { _ = try? cluster.run("stop") }
        try ServerProcess.run(arguments: Self.arguments,
                              database: ServerDatabase(arguments: ["--database-url", url], setupError: nil)) { server, api in
            #expect(try api.call("GET", "/").status == 200)
            try cluster.run("stop")
            let started = Date()
            let (admitted, refused) = try Self.drain([api])
            let refilled = Int(Date().timeIntervalSince(started).rounded(.up))
            // The process's own bucket, full when the shared one failed, plus
            // at most its stock and credit (2 × lease) spent before that.
            #expect(admitted >= Self.burst)
            #expect(admitted <= Self.burst + 2 * 10 + refilled, "refilled \(refilled)")
            #expect(refused > 0)
            #expect(try Self.metric(api, #"axiom_http_rate_limit_shared{policy="per-address"}"#) == 0)
            #expect(try Self.metric(api, #"axiom_http_rate_limit_shared_failures_total{policy="per-address"}"#) ?? 0 >= 1)
        }
    }
}

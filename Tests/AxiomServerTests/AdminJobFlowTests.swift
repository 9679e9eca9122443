import Foundation
import Testing
import TestSupport

/// The job queue through the real binary: the periodic jobs every process
/// ensures at start-up, `GET /admin/jobs` (filters, keyset pages),
/// `GET /admin/jobs/{id}`, retry of a dead job and discard, refusals as
/// problems; admins only. On either backend (the dead job is made by
/// editing its row, with sqlite3 or libpq).
@Suite struct AdminJobFlowTests {
    static let periodicKinds: Set = ["payments.expire", "checkouts.recover", "sessions.remove_expired", "jobs.prune",
                                     "webhooks.prune"]

    @Test func listsShowsRetriesAndDiscardsJobs() async throws {
        try await ServerProcess.run(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment) { server, api in
            let admin = try api.adminToken()
            let database = try #require(server.database)
            // Every periodic kind has its one job; the prune ran at start-up
            // and waits for its next hour.
            await eventually { (try? Self.items(api, admin, "kind=jobs.prune").first?["finished_at"] as? String) != nil }
            let all = try Self.items(api, admin, "")
            #expect(Set(all.compactMap { $0["kind"] as? String }) == Self.periodicKinds)
            #expect(all.count == Self.periodicKinds.count, "one job per periodic kind")
            let prune = try #require(try Self.items(api, admin, "kind=jobs.prune").first)
            let id = try #require(prune["id"] as? Int)
            #expect(prune["state"] as? String == "queued" && prune["unique_key"] as? String == "periodic")
            #expect(prune["payload"] as? [String: Any] != nil && prune["sensitive"] as? Bool == false)

            // Keyset pages of one cover the list once, newest first.
            var paged: [Int] = []
            var cursor: String?
            repeat {
                let page = try api.object(try api.call("GET", "/admin/jobs?limit=1" + (cursor.map { "&cursor=\($0)" } ?? ""),
                                                       token: admin))
                paged += (page["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                cursor = page["next_cursor"] as? String
            } while cursor != nil
            #expect(paged == all.compactMap { $0["id"] as? Int } && paged == paged.sorted(by: >))

            // A queued job is not retried; a dead one is, with its attempts reset.
            let notDead = try api.call("POST", "/admin/jobs/\(id)/retry", token: admin)
            #expect(notDead.status == 409 && api.object(notDead)["code"] as? String == "job_state_conflict")
            try Self.execute("UPDATE jobs SET state = 'dead', attempts = 20, last_error = 'broken', finished_at = 1 WHERE id = \(id)",
                             on: database)
            let dead = try api.object(try api.call("GET", "/admin/jobs/\(id)", token: admin))
            #expect(dead["state"] as? String == "dead" && dead["last_error"] as? String == "broken")
            #expect(try Self.items(api, admin, "state=dead").compactMap { $0["id"] as? Int } == [id])
            let retried = try api.call("POST", "/admin/jobs/\(id)/retry", token: admin)
            #expect(retried.status == 200)
            #expect(api.object(retried)["state"] as? String == "queued" && api.object(retried)["attempts"] as? Int == 0)
            // It runs again, and is queued for its next hour.
            await eventually {
                let job = try? api.object(try api.call("GET", "/admin/jobs/\(id)", token: admin))
                return job?["state"] as? String == "queued" && job?["last_error"] is NSNull
            }

            // Discarded: final, not discarded or retried again.
            let discarded = try api.call("POST", "/admin/jobs/\(id)/discard", token: admin)
            #expect(discarded.status == 200 && api.object(discarded)["state"] as? String == "discarded")
            #expect(try api.call("POST", "/admin/jobs/\(id)/discard", token: admin).status == 409)
            #expect(try api.call("POST", "/admin/jobs/\(id)/retry", token: admin).status == 409)

            // Unknown ids and bad parameters; admins only.
            let missing = try api.call("GET", "/admin/jobs/999999", token: admin)
            #expect(missing.status == 404 && api.object(missing)["code"] as? String == "job_not_found")
            #expect(try api.call("GET", "/admin/jobs/abc", token: admin).status == 404)
            #expect(try api.call("POST", "/admin/jobs/999999/retry", token: admin).status == 404)
            let bad = try api.call("GET", "/admin/jobs?state=lost", token: admin)
            #expect(bad.status == 422 && (api.object(bad)["errors"] as? [[String: Any]])?.first?["field"] as? String == "state")
            #expect(try api.call("GET", "/admin/jobs?cursor=x", token: admin).status == 422)
            #expect(try api.call("GET", "/admin/jobs").status == 401)
            try api.register("Cy", email: "cy@example.com", password: "correct horse battery")
            let customer = try api.token("cy@example.com", "correct horse battery")
            #expect(try api.call("GET", "/admin/jobs", token: customer).status == 403)

            // The queue per kind in /metrics.
            let metrics = String(decoding: try api.call("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"axiom_jobs{kind="payments.expire",state="queued"}"#)
                    || metrics.contains(#"axiom_jobs{kind="payments.expire",state="running"}"#))
            #expect(metrics.contains(#"axiom_jobs_finished_total{kind="payments.expire",outcome="succeeded"}"#))
            #expect(metrics.contains(#"axiom_jobs{kind="jobs.prune",state="dead"} 0"#))
            #expect(metrics.contains("axiom_jobs_oldest_due_age_seconds{kind=\"jobs.prune\"}"))
        }
    }

    /// Two processes on one database: each periodic kind still has one job,
    /// never running on both at once, and its runs between them are those
    /// of one chain (every half second for payments.expire), not two.
    @Test func twoProcessesRunAPeriodicKindOneAtATime() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-jobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = ServerDatabase.fresh(in: directory)
        let started = ContinuousClock.now
        let a = ServerProcess(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment, database: database)
        try a.start()
        defer { a.stop() }
        let b = ServerProcess(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment, database: database)
        try b.start()
        defer { b.stop() }
        let api = AccountFlowTests.API(port: a.port)
        let admin = try api.adminToken()
        for _ in 0..<40 {
            let jobs = try Self.items(api, admin, "kind=payments.expire")
            #expect(jobs.count == 1, "one job for the kind: \(jobs.count)")
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try Self.items(api, admin, "").count == Self.periodicKinds.count)
        let runs = try [a, b].map { server in
            try Self.succeeded("payments.expire", AccountFlowTests.API(port: server.port))
        }
        let elapsed = ContinuousClock.now - started
        let bound = Int(elapsed.components.seconds * 2) + 3
        #expect(runs.reduce(0, +) >= 3 && runs.reduce(0, +) <= bound, "runs \(runs) in \(elapsed)")
    }

    /// This process's count of `kind`'s successful runs, from `/metrics`.
    static func succeeded(_ kind: String, _ api: AccountFlowTests.API) throws -> Int {
        let metrics = String(decoding: try api.call("GET", "/metrics").body, as: UTF8.self)
        let prefix = "axiom_jobs_finished_total{kind=\"\(kind)\",outcome=\"succeeded\"} "
        let line = metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }
        return Int(line?.dropFirst(prefix.count) ?? "") ?? 0
    }

    static func items(_ api: AccountFlowTests.API, _ admin: String, _ query: String) throws -> [[String: Any]] {
        let response = try api.call("GET", "/admin/jobs?" + query, token: admin)
        #expect(response.status == 200)
        return api.object(response)["items"] as? [[String: Any]] ?? []
    }

    /// Runs `sql` on the server's database, beside the server.
    static func execute(_ sql: String, on database: ServerDatabase) throws {
        let location = try #require(database.arguments.last)
        if database.arguments.first == "--database-url" {
            let error = ServerDatabase.execute(sql, on: location)
            #expect(error == nil, "\(error ?? "")")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-cmd", ".timeout 5000", location, sql]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}

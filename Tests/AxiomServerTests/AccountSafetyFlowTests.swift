import Foundation
import Synchronization
import Testing
import TestSupport

/// Issue 9's sign-in and account findings, against the real binary: every
/// connection comes from 127.0.0.1, so the throttle's per-address and
/// trusted-pair rules are what can be seen here (the rest is pinned on
/// moved time in LoginThrottleTests).
@Suite struct AccountSafetyFlowTests {
    typealias API = AccountFlowTests.API
    static let password = EventShop.password

    private func signIn(_ api: API, _ email: String, _ password: String) throws -> RawClient.Response {
        try api.call("POST", "/sessions", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
    }

    /// `POST /sessions` from another loopback address.
    private func signIn(port: Int, from address: String, _ email: String, _ password: String) throws -> RawClient.Response {
        let client = try RawClient(port: port, sourceAddress: address)
        let body = #"{"email":"\#(email)","password":"\#(password)"}"#
        try client.send("POST /sessions HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        return try client.readResponse()
    }

    /// Before: 5 failures for an account, from anywhere, answered every
    /// address 429 for 15 min, the owner's too. Ten attacking addresses
    /// (127.0.0.2–11) here; the owner signed in from 127.0.0.50 before.
    @Test func attackersAtManyAddressesDoNotHoldTheOwnerWhereTheySignedInBefore() throws {
        try EventShop.run(users: 1, sessionsEach: 0) { shop in
            let port = shop.server.port
            #expect(try signIn(port: port, from: "127.0.0.50", "live0@example.com", Self.password).status == 201)
            var failures = 0
            var lastRefusal: RawClient.Response?
            for host in 2...11 {
                lastRefusal = nil
                // Bounded: each admitted failure lengthens the back-off, so a 429 comes.
                for _ in 0..<12 where lastRefusal == nil {
                    let response = try signIn(port: port, from: "127.0.0.\(host)", "live0@example.com", "not the password")
                    if response.status == 429 { lastRefusal = response } else { #expect(response.status == 401); failures += 1 }
                }
                #expect(lastRefusal != nil, "127.0.0.\(host) was never held")
            }
            #expect(failures >= 10)
            let retryAfter = try #require(lastRefusal?.header("Retry-After").flatMap { Int($0) })
            #expect(retryAfter >= 1 && retryAfter <= 300, "Retry-After \(retryAfter)")
            let started = ContinuousClock.now
            let owner = try signIn(port: port, from: "127.0.0.50", "live0@example.com", Self.password)
            #expect(owner.status == 201)
            print("after \(failures) failures from 10 addresses: owner at a familiar address got \(owner.status) "
                  + "in \(ContinuousClock.now - started); the last attacking address was told Retry-After \(retryAfter)")
        }
    }

    /// Before: 20 failures blocked the address for 15 min, for everyone.
    @Test func anAddressSprayingWrongPasswordsBacksOffBrieflyAndNotForAccountsThatSignedInThere() throws {
        try EventShop.run(users: 2, sessionsEach: 1) { shop in
            // live0 signed in from here (EventShop did); live1 is attacked.
            var failures = 0
            var refusal: RawClient.Response?
            for _ in 0..<40 where refusal == nil {
                let response = try signIn(shop.api, "live1@example.com", "not the password")
                if response.status == 429 { refusal = response } else { #expect(response.status == 401); failures += 1 }
            }
            let pairRefusal = try #require(refusal)
            #expect(failures >= 5)
            #expect(shop.api.object(pairRefusal)["code"] as? String == "too_many_attempts")
            // The sign-in throttle is the `login` policy of the rate-limit
            // mechanism: its fields come before the server's per-address ones.
            let pairWait = try #require(pairRefusal.header("Retry-After"))
            #expect(pairRefusal.headers("RateLimit-Policy").first == #""login";q=5;w=900"#)
            #expect(pairRefusal.headers("RateLimit").first == #""login";r=0;t=\#(pairWait)"#)
            #expect(pairRefusal.headers("RateLimit-Policy").count == 2)
            // Bounded loop: an admitted failure only lengthens the back-off, so a 429 comes.
            refusal = nil
            for index in 0..<60 where refusal == nil {
                let response = try signIn(shop.api, "ghost\(index)@example.com", "whatever it is")
                if response.status == 429 { refusal = response } else { #expect(response.status == 401); failures += 1 }
            }
            let addressRefusal = try #require(refusal)
            #expect(failures >= 20)
            let retryAfter = try #require(addressRefusal.header("Retry-After").flatMap { Int($0) })
            #expect(retryAfter >= 1 && retryAfter <= 30, "Retry-After \(retryAfter)")
            // The account that signed in from this address gets in at once.
            #expect(try signIn(shop.api, "live0@example.com", Self.password).status == 201)
            // Counted in the rate-limit series, as the `login` policy.
            let metrics = try shop.api.call("GET", "/metrics").text
            let refused = metrics.split(separator: "\n").first {
                $0.hasPrefix(#"axiom_http_rate_limit_requests_total{policy="login",decision="refused"}"#)
            }
            #expect(refused.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) } == 2)
        }
    }

    /// `change` (a PATCH /users/me body) from the first of a user's three
    /// sessions ends the other two and the third's stream; `after` then
    /// checks the first session and the change itself.
    private func changeEndsTheOtherSessions(_ change: String, after: (EventShop, String) throws -> Void) throws {
        try EventShop.run(users: 1, sessionsEach: 3, arguments: ["--events-heartbeat-interval", "0.1"]) { shop in
            let (current, other, streaming) = (shop.tokens[0][0], shop.tokens[0][1], shop.tokens[0][2])
            let stream = try shop.stream(streaming)
            #expect(try stream.nextBlock() == "retry: 2000")
            #expect(try shop.api.call("PATCH", "/users/me", json: change, token: current).status == 200)
            // The stream ends with its last chunk; only heartbeats came before.
            let rest = try #require(try stream.blocksUntilEnd())
            #expect(rest.allSatisfy { $0.hasPrefix(":") })
            for token in [other, streaming] {
                #expect(try shop.api.call("GET", "/users/me", token: token).status == 401)
            }
            try after(shop, current)
        }
    }

    @Test func aPasswordChangeEndsTheOtherSessionsAndTheirStreams() throws {
        try changeEndsTheOtherSessions(#"{"password":"a brand new secret","current_password":"\#(Self.password)"}"#) { (shop, current) throws in
            #expect(try shop.api.call("GET", "/users/me", token: current).status == 200)
            #expect(try signIn(shop.api, "live0@example.com", "a brand new secret").status == 201)
        }
    }

    /// Before: only a password change signed the other sessions out.
    @Test func anEmailChangeEndsTheOtherSessionsAndTheirStreams() throws {
        try changeEndsTheOtherSessions(#"{"email":"moved@example.com","current_password":"\#(Self.password)"}"#) { shop, current in
            #expect(try shop.get("/users/me", token: current)["email"] as? String == "moved@example.com")
            // A name change is not a credential change: nobody is signed out.
            let kept = try shop.api.token("moved@example.com", Self.password)
            #expect(try shop.api.call("PATCH", "/users/me", json: #"{"name":"Renamed"}"#, token: current).status == 200)
            #expect(try shop.api.call("GET", "/users/me", token: kept).status == 200)
        }
    }

    /// Before: hashing waiters queued without bound. With no waiting room,
    /// registrations beyond the hashing slots are 503 with Retry-After, and
    /// create nothing.
    @Test func registrationsBeyondTheHashingQueueAre503AndCreateNothing() throws {
        try ServerProcess.run(arguments: ["--port", "0", "--password-hash-max-waiting", "0"]) { server, api in
            struct Answer: Sendable {
                let email: String
                let status: Int
                let retryAfter: String?
                let code: String?
            }
            let answers = Mutex<[Answer]>([])
            for round in 0..<5 where !answers.withLock({ $0.contains { $0.status == 503 } }) {
                // A thread each (concurrentPerform would run only a core's worth at once).
                let done = DispatchGroup()
                for index in 0..<24 {
                    done.enter()
                    Thread {
                        defer { done.leave() }
                        let email = "crowd\(round)-\(index)@example.com"
                        let body = #"{"name":"C","email":"\#(email)","password":"correct horse battery"}"#
                        guard let response = try? api.call("POST", "/users", json: body) else { return }
                        let answer = Answer(email: email, status: response.status, retryAfter: response.header("Retry-After"),
                                            code: api.object(response)["code"] as? String)
                        answers.withLock { $0.append(answer) }
                    }.start()
                }
                done.wait()
            }
            let all = answers.withLock { $0 }
            let busy = try #require(all.first { $0.status == 503 }, "no registration was turned away")
            #expect(Set(all.map(\.status)).isSubset(of: [202, 503]))
            #expect(busy.retryAfter == "1")
            #expect(busy.code == "password_hashing_busy")
            let admitted = try #require(all.first { $0.status == 202 })
            #expect(try signIn(api, admitted.email, Self.password).status == 201)
            #expect(try signIn(api, busy.email, Self.password).status == 401)
        }
    }

    @Test func anEmailChangeNeedsTheCurrentPassword() throws {
        try EventShop.run(users: 1, sessionsEach: 1) { shop in
            let token = shop.tokens[0][0]
            let missing = try shop.api.call("PATCH", "/users/me", json: #"{"email":"thief@example.com"}"#, token: token)
            #expect(missing.status == 422)
            let fields = (shop.api.object(missing)["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(fields == ["current_password"])
            let wrong = try shop.api.call("PATCH", "/users/me",
                                          json: #"{"email":"thief@example.com","current_password":"not the password"}"#, token: token)
            #expect(wrong.status == 401)
            #expect(shop.api.object(wrong)["code"] as? String == "invalid_credentials")
            #expect(try shop.get("/users/me", token: token)["email"] as? String == "live0@example.com")
            let right = try shop.api.call("PATCH", "/users/me",
                                          json: #"{"email":"new@example.com","current_password":"\#(Self.password)"}"#, token: token)
            #expect(right.status == 200)
            #expect(try shop.get("/users/me", token: token)["email"] as? String == "new@example.com")
        }
    }

    @Test func theLastAdminCanBeNeitherDemotedNorSuspendedEvenByItself() throws {
        try EventShop.run(users: 1, sessionsEach: 1) { shop in
            let adminID = try #require(try shop.get("/users/me", token: shop.admin)["id"] as? String)
            for body in [#"{"role":"customer"}"#, #"{"status":"suspended"}"#] {
                let refused = try shop.api.call("PATCH", "/users/\(adminID)", json: body, token: shop.admin)
                #expect(refused.status == 409, "\(body)")
                #expect(shop.api.object(refused)["code"] as? String == "last_admin")
            }
            let me = try shop.get("/users/me", token: shop.admin)
            #expect(me["role"] as? String == "admin" && me["status"] as? String == "active")
            // With a second admin, the first may step down.
            let customerID = try #require(try shop.get("/users/me", token: shop.tokens[0][0])["id"] as? String)
            #expect(try shop.api.call("PATCH", "/users/\(customerID)", json: #"{"role":"admin"}"#, token: shop.admin).status == 200)
            #expect(try shop.api.call("PATCH", "/users/\(adminID)", json: #"{"role":"customer"}"#, token: shop.admin).status == 200)
            // The configured admin email is now a customer's: a restart says so
            // instead of logging admin_ready.
            shop.server.signal(SIGTERM)
            #expect(shop.server.waitForExit(seconds: 30) == 0)
            let database = try #require(shop.server.database)
            let restarted = ServerProcess(arguments: ["--port", "0"],
                                          environment: AccountFlowTests.adminEnvironment, database: database)
            try restarted.start()
            defer { restarted.stop() }
            #expect(try signIn(API(port: restarted.port), "root@example.com", "a very long secret").status == 201)
            #expect(restarted.log.contains { $0.contains(#""event":"admin_email_not_an_active_admin""#) })
            #expect(!restarted.log.contains { $0.contains(#""event":"admin_ready""#) })
        }
    }
}

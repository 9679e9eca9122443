import Foundation
import Testing
import TestSupport

/// The route-class limits per client address, with the shipped defaults
/// (no load-test settings): registration, sign-in and checkout each have a
/// bucket of their own, far smaller than the `per-address` one.
@Suite struct RouteClassRateLimitFlowTests {
    typealias API = AccountFlowTests.API

    /// Requests `send` until one is refused (at most `bound`); the refusal.
    private func firstRefusal(bound: Int, _ send: (Int) throws -> RawClient.Response) throws -> RawClient.Response? {
        for index in 0..<bound {
            let response = try send(index)
            if response.status == 429 { return response }
        }
        return nil
    }

    /// `POST path` from another loopback address.
    private func post(port: Int, from address: String, _ path: String, _ body: String) throws -> RawClient.Response {
        let client = try RawClient(port: port, sourceAddress: address)
        try client.send("POST \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        return try client.readResponse()
    }

    /// Before: the only limit was 100,000/s per address, so 200,000
    /// registrations (an argon2id hash each) could come from one address at once.
    @Test func registrationSignInAndCheckoutHaveLimitsPerAddress() throws {
        let server = ServerProcess(arguments: ["--port", "0"], environment: AccountFlowTests.adminEnvironment,
                                   loadTestLimits: false)
        try server.start()
        defer { server.stop() }
        let api = API(port: server.port)
        let password = "correct horse battery"

        let registration = try #require(try firstRefusal(bound: 40) { index in
            try api.call("POST", "/users", json: #"{"name":"R","email":"reg\#(index)@example.com","password":"\#(password)"}"#)
        }, "registrations were never limited")
        #expect(api.object(registration)["code"] as? String == "rate_limited")
        #expect(registration.header("Retry-After").flatMap { Int($0) } ?? 0 >= 1)
        #expect(registration.headers("RateLimit-Policy").contains(#""registration";q=10;w=120"#))
        // Another address is not held by it.
        let registered = try post(port: server.port, from: "127.0.0.2", "/users",
                                  #"{"name":"O","email":"other@example.com","password":"\#(password)"}"#)
        #expect(registered.status == 202)

        let signIn = try #require(try firstRefusal(bound: 60) { _ in
            try api.call("POST", "/sessions", json: #"{"email":"reg0@example.com","password":"\#(password)"}"#)
        }, "sign-ins were never limited")
        #expect(api.object(signIn)["code"] as? String == "rate_limited")
        #expect(signIn.headers("RateLimit-Policy").contains(#""sign-in";q=20;w=60"#))

        let session = try post(port: server.port, from: "127.0.0.2", "/sessions",
                               #"{"email":"other@example.com","password":"\#(password)"}"#)
        let token = try #require(api.object(session)["token"] as? String)
        let checkout = try #require(try firstRefusal(bound: 80) { _ in
            try api.call("POST", "/checkout", token: token)
        }, "checkouts were never limited")
        #expect(api.object(checkout)["code"] as? String == "rate_limited")
        #expect(checkout.headers("RateLimit-Policy").contains(#""checkout";q=30;w=60"#))
    }

    /// Each reset request may queue a mail: one address gets 5 a minute,
    /// known addresses or not, and another address is not held by it.
    @Test func passwordResetsHaveALimitPerAddress() throws {
        let server = ServerProcess(arguments: ["--port", "0"], loadTestLimits: false)
        try server.start()
        defer { server.stop() }
        let api = API(port: server.port)
        let refused = try #require(try firstRefusal(bound: 20) { index in
            try api.call("POST", "/password-resets", json: #"{"email":"someone\#(index)@example.com"}"#)
        }, "reset requests were never limited")
        #expect(api.object(refused)["code"] as? String == "rate_limited")
        #expect(refused.headers("RateLimit-Policy").contains(#""password-reset";q=5;w=60"#))
        let completion = try api.call("POST", "/password-resets/complete", json: #"{"token":"x","password":"a brand new secret"}"#)
        #expect(completion.status == 429, "completions share the bucket")
        let other = try post(port: server.port, from: "127.0.0.2", "/password-resets", #"{"email":"someone@example.com"}"#)
        #expect(other.status != 429)
    }
}

import Foundation
import Testing
import TestSupport

/// Behind a trusted proxy every per-client rule counts by the forwarded
/// client, not the proxy: here the server trusts 127.0.0.1, and each
/// "client" is an `X-Forwarded-For` value.
@Suite struct ForwardedClientFlowTests {
    typealias API = AccountFlowTests.API
    static let password = EventShop.password

    static func open(users: Int) throws -> EventShop {
        try EventShop.open(users: users, sessionsEach: 0, arguments: ["--trusted-proxies", "127.0.0.1"])
    }

    static func signIn(_ api: API, _ email: String, _ password: String, from client: String) throws -> RawClient.Response {
        try api.call("POST", "/sessions", json: #"{"email":"\#(email)","password":"\#(password)"}"#,
                     headers: ["X-Forwarded-For": client])
    }

    /// A forwarded client that fails sign-ins until it is held (429), and
    /// the address the owner then signs in from.
    struct HeldClient: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let client: String
        let attempts: Int
        let email: @Sendable (Int) -> String
        let password: String
        let owner: String
    }

    @Test(arguments: [
        // Before: the throttle counted the proxy, so the attacker's run for
        // the account was the owner's too (429 with the right password).
        HeldClient(testDescription: "an attacker's failures do not hold the owner at another forwarded address",
                   client: "203.0.113.7", attempts: 12, email: { _ in "live0@example.com" },
                   password: "not the password", owner: "198.51.100.20"),
        // Before: 20 failures over many accounts held the proxy's address,
        // so every client behind it got 429 with a right password.
        HeldClient(testDescription: "a spraying client does not hold everyone behind the proxy",
                   client: "203.0.113.8", attempts: 60, email: { "ghost\($0)@example.com" },
                   password: "whatever it is", owner: "198.51.100.21"),
    ])
    func aHeldClientDoesNotHoldTheOwnerBehindTheSameProxy(_ held: HeldClient) throws {
        let shop = try Self.open(users: 1)
        defer { shop.server.stop() }
        var refused = false
        for index in 0..<held.attempts where !refused {
            let response = try Self.signIn(shop.api, held.email(index), held.password, from: held.client)
            refused = response.status == 429
            if !refused { #expect(response.status == 401) }
        }
        #expect(refused, "\(held.client) was never held")
        let owner = try Self.signIn(shop.api, "live0@example.com", Self.password, from: held.owner)
        #expect(owner.status == 201)
    }

    /// Before: 120 wrong passwords for one account, each from another
    /// address, were 120 × 401. Now the account's failures hold every
    /// address it has not signed in from, and not the owner's.
    @Test func guessesFromManyAddressesAreHeldButNotTheOwnerWhereTheySignedInBefore() throws {
        let shop = try Self.open(users: 1)
        defer { shop.server.stop() }
        #expect(try Self.signIn(shop.api, "live0@example.com", Self.password, from: "198.51.100.30").status == 201)
        var failures = 0
        var refusal: RawClient.Response?
        for host in 1...120 where refusal == nil {
            let response = try Self.signIn(shop.api, "live0@example.com", "not the password", from: "203.0.113.\(host)")
            if response.status == 429 { refusal = response } else { #expect(response.status == 401); failures += 1 }
        }
        let held = try #require(refusal, "120 addresses guessed unheld")
        #expect(shop.api.object(held)["code"] as? String == "too_many_attempts")
        // Each address tried once: only the account's run can have held it.
        #expect(failures >= 10 && failures < 40, "\(failures) failures")
        let retryAfter = try #require(held.header("Retry-After").flatMap { Int($0) })
        #expect(retryAfter >= 1 && retryAfter <= 300)
        #expect(try Self.signIn(shop.api, "live0@example.com", Self.password, from: "198.51.100.30").status == 201)
    }

    /// The access line names the forwarded client, and the socket peer apart.
    @Test func theAccessLogNamesTheForwardedClient() throws {
        let shop = try Self.open(users: 0)
        defer { shop.server.stop() }
        #expect(try shop.api.call("GET", "/health", headers: ["X-Forwarded-For": "192.0.2.9"]).status == 200)
        // The access log is buffered: stopping the server writes it out.
        shop.server.signal(SIGTERM)
        #expect(shop.server.waitForExit(seconds: 20) == 0)
        let line = shop.server.log.first { $0.contains(#""route":"/health""#) && $0.contains(#""client":"192.0.2.9""#) }
        let found = try #require(line)
        #expect(found.contains(#""peer":"127.0.0.1:"#))
    }
}

import Foundation
import Testing
import TestSupport

/// The `per-user` rate limit against the real binary: one token bucket per
/// signed-in user, shared by their sessions, beside the per-address one.
@Suite struct UserRateLimitFlowTests {
    /// A refill of 1 per second under a burst of 3: the loop below makes
    /// its requests back to back, and is bounded (a 429 must come within
    /// 30 requests unless they take 27 s). One process's exact bucket
    /// (`rate_limit_scope: process`): counted across processes, a request
    /// made before the first lease arrived may be refused
    /// (ClusterRateLimitTests).
    @Test func aUsersSessionsShareOneBucketAndAnotherUserKeepsTheirs() throws {
        try EventShop.run(users: 2, sessionsEach: 2,
                          arguments: ["--rate-limit-user-per-second", "1", "--rate-limit-user-burst", "3",
                                      "--rate-limit-scope", "process"]) { shop in
            let first = try shop.api.call("GET", "/cart", token: shop.tokens[0][0])
            #expect(first.status == 200)
            #expect(first.headers("RateLimit-Policy") == [#""per-user";q=3;w=3"#, #""per-address";q=200000;w=2"#])
            #expect(first.headers("RateLimit").first == #""per-user";r=2;t=1"#)

            var refusal: RawClient.Response?
            var allowed = 1
            for index in 0..<30 where refusal == nil {
                // Both sessions of the user draw on the same bucket.
                let response = try shop.api.call("GET", "/cart", token: shop.tokens[0][index % 2])
                if response.status == 429 { refusal = response } else { #expect(response.status == 200); allowed += 1 }
            }
            let refused = try #require(refusal)
            #expect(allowed >= 3)
            #expect(shop.api.object(refused)["code"] as? String == "rate_limited")
            let wait = try #require(refused.header("Retry-After").flatMap { Int($0) })
            #expect(wait >= 1)
            #expect(refused.headers("RateLimit-Policy").first == #""per-user";q=3;w=3"#)
            #expect(refused.headers("RateLimit").first == #""per-user";r=0;t=\#(wait)"#)

            // The other user, and anonymous reads, are not held by it.
            #expect(try shop.api.call("GET", "/cart", token: shop.tokens[1][0]).status == 200)
            #expect(try shop.api.call("GET", "/products/\(shop.productID)").status == 200)
            // No token, no user: a 401 takes nothing from anyone's bucket.
            #expect(try shop.api.call("GET", "/cart").status == 401)

            let metrics = try shop.api.call("GET", "/metrics").text
            let line = metrics.split(separator: "\n").first {
                $0.hasPrefix(#"axiom_http_rate_limit_requests_total{policy="per-user",decision="refused"}"#)
            }
            #expect(line.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) } ?? 0 >= 1)
            #expect(metrics.contains(#"axiom_http_rate_limit_clients{policy="per-user"} 3"#))
        }
    }
}

import Testing
@testable import HTTPServer
import TestSupport

@Suite struct RateLimitTests {
    static let second: Int64 = 1_000_000_000

    @Test func aBucketSpendsItsBurstThenRefillsWithTheFakeClock() {
        var bucket = TokenBucket(rate: 2, capacity: 3, now: 0)
        #expect(bucket.take(now: 0) == .allowed(remaining: 2, resetSeconds: 1))
        #expect(bucket.take(now: 0) == .allowed(remaining: 1, resetSeconds: 1))
        #expect(bucket.take(now: 0) == .allowed(remaining: 0, resetSeconds: 2))
        #expect(bucket.take(now: 0) == .refused(retryAfterSeconds: 1))
        #expect(bucket.take(now: Self.second / 2) == .allowed(remaining: 0, resetSeconds: 2))
        #expect(!bucket.isFull(at: Self.second))
        #expect(bucket.isFull(at: 2 * Self.second))
        // Refill stops at the capacity, however long the pause.
        #expect(bucket.take(now: 1000 * Self.second) == .allowed(remaining: 2, resetSeconds: 1))
        var slow = TokenBucket(rate: 0.1, capacity: 1, now: 0)
        _ = slow.take(now: 0)
        #expect(slow.take(now: 0) == .refused(retryAfterSeconds: 10))
    }

    @Test func theLimiterKeepsClientsApartAndItsMemoryBounded() {
        let limiter = RateLimiter(policy: RateLimitPolicy(requestsPerSecond: 1, burst: 1, maxTrackedClients: 64), shards: 4)
        #expect(limiter.take("10.0.0.1", now: 0) == .allowed(remaining: 0, resetSeconds: 1))
        #expect(limiter.take("10.0.0.1", now: 0) == .refused(retryAfterSeconds: 1))
        #expect(limiter.take("10.0.0.2", now: 0) == .allowed(remaining: 0, resetSeconds: 1))
        for index in 0..<10_000 { _ = limiter.take("client-\(index)", now: Int64(index)) }
        #expect(limiter.trackedClients <= 64)
        #expect(limiter.refused == 1)
        #expect(limiter.allowed == 10_002)
    }

    @Test func forwardedForCountsOnlyBehindATrustedProxy() {
        let fields: HTTPFields = ["X-Forwarded-For": "203.0.113.9, 198.51.100.7, 10.0.0.2"]
        #expect(ClientAddress.resolve(peer: "192.0.2.1", headers: fields, trustedProxies: ["10.0.0.1"]) == "192.0.2.1")
        #expect(ClientAddress.resolve(peer: "10.0.0.1", headers: fields, trustedProxies: ["10.0.0.1", "10.0.0.2"])
                == "198.51.100.7")
        #expect(ClientAddress.resolve(peer: "10.0.0.1", headers: HTTPFields(), trustedProxies: ["10.0.0.1"]) == "10.0.0.1")
    }

    @Test func beyondTheBurstIs429WithRetryAfterAndTheRateLimitFields() async throws {
        // 1 request per 100 s: no refill can happen during the test.
        let configuration = HTTPServerConfiguration(rateLimit: RateLimitPolicy(requestsPerSecond: 0.01, burst: 2))
        try await TestServer.with(configuration: configuration, router: PolicyRoutes.router()) { server in
            let client = try server.client()
            for remaining in [1, 0] {
                try client.send("GET /small HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.header("RateLimit-Policy") == "\"per-address\";q=2;w=200")
                #expect(response.header("RateLimit")?.hasPrefix("\"per-address\";r=\(remaining);t=") == true)
            }
            try client.send("POST /things HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc")
            let refused = try client.readResponse()
            #expect(refused.status == 429)
            // 100 s less what refilled since the first request: a wide
            // margin, so a slow machine cannot fail this.
            let retryAfter = try #require(refused.header("Retry-After").flatMap { Int($0) })
            #expect((90...100).contains(retryAfter))
            #expect(refused.text.contains(#""code":"rate_limited""#))
            #expect(refused.header("RateLimit") == "\"per-address\";r=0;t=\(retryAfter)")
            // The connection stays usable; exempt routes are served.
            try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            let health = try client.readResponse()
            #expect(health.status == 200)
            #expect(health.header("RateLimit") == nil)
            #expect(server.server.rateLimiter?.refused == 1)
        }
    }

    @Test func theRateLimitFieldIsWrittenInDecimal() {
        let policy = RateLimitPolicy(requestsPerSecond: 10, burst: 20)
        #expect(RateLimitPolicy.stateField(name: policy.name, remaining: 0, resetSeconds: 1) == #""per-address";r=0;t=1"#)
        #expect(RateLimitPolicy.stateField(name: policy.name, remaining: 1234, resetSeconds: 560) == #""per-address";r=1234;t=560"#)
        #expect(RateLimitPolicy.stateField(name: policy.name, remaining: Int.max, resetSeconds: -3) == #""per-address";r=9223372036854775807;t=0"#)
    }
}

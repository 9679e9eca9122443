/// The server's request rate limit per client: a token bucket of `burst`
/// requests refilled at `requestsPerSecond`, kept for at most
/// `maxTrackedClients` clients at once.
public struct RateLimitPolicy: Sendable {
    public var requestsPerSecond: Double
    public var burst: Int
    public var maxTrackedClients: Int

    public init(requestsPerSecond: Double, burst: Int, maxTrackedClients: Int = 100_000) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
        self.maxTrackedClients = maxTrackedClients
    }

    /// `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-11, 4):
    /// quota `q` requests per window `w` seconds; the window is the time an
    /// empty bucket takes to fill.
    var policyField: String {
        "\"per-address\";q=\(burst);w=\(max(1, Int((Double(burst) / requestsPerSecond).rounded(.up))))"
    }

    /// `RateLimit` (5): `r` requests remaining, `t` seconds until the quota is whole again.
    func stateField(remaining: Int, resetSeconds: Int) -> String {
        "\"per-address\";r=\(remaining);t=\(resetSeconds)"
    }
}

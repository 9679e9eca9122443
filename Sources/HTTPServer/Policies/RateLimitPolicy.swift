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
    /// Written into one string of its final size: the interpolation made
    /// two allocations on every rate-limited response (scripts/alloc-count.sh
    /// on GET /products/{id}).
    func stateField(remaining: Int, resetSeconds: Int) -> String {
        let prefix: StaticString = "\"per-address\";r="
        return String(unsafeUninitializedCapacity: prefix.utf8CodeUnitCount + 2 * 20 + 3) { buffer in
            var at = 0
            for offset in 0..<prefix.utf8CodeUnitCount {
                buffer[at] = prefix.utf8Start[offset]
                at += 1
            }
            Self.writeDecimal(remaining, into: buffer, at: &at)
            for byte in ";t=".utf8 {
                buffer[at] = byte
                at += 1
            }
            Self.writeDecimal(resetSeconds, into: buffer, at: &at)
            return at
        }
    }

    /// `value` (clamped at 0: neither field can be negative) in decimal.
    private static func writeDecimal(_ value: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at: inout Int) {
        var rest = UInt(max(0, value))
        let start = at
        repeat {
            buffer[at] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            at += 1
        } while rest > 0
        var (low, high) = (start, at - 1)
        while low < high {
            buffer.swapAt(low, high)
            low += 1
            high -= 1
        }
    }
}

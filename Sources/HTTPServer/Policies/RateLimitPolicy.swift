/// A request rate limit: a token bucket of `burst` requests refilled at
/// `requestsPerSecond`, kept for at most `maxTrackedClients` keys at once.
/// `name` is the policy's name in the `RateLimit-Policy` and `RateLimit`
/// fields and the `policy` label in metrics: the server's own limit is
/// `per-address`; the application adds others (`per-user`) on the same
/// mechanism.
public struct RateLimitPolicy: Sendable {
    public var name: String
    public var requestsPerSecond: Double
    public var burst: Int
    public var maxTrackedClients: Int

    public init(name: String = "per-address", requestsPerSecond: Double, burst: Int, maxTrackedClients: Int = 100_000) {
        self.name = name
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
        self.maxTrackedClients = maxTrackedClients
    }

    /// `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-11, 4):
    /// quota `q` requests per window `w` seconds; the window is the time an
    /// empty bucket takes to fill.
    public var policyField: String {
        Self.policyField(name: name, quota: burst,
                         windowSeconds: max(1, Int((Double(burst) / requestsPerSecond).rounded(.up))))
    }

    /// The field of any named policy, also one that is no token bucket
    /// (sign-in back-off states its free attempts per forgetting window).
    public static func policyField(name: String, quota: Int, windowSeconds: Int) -> String {
        "\"\(name)\";q=\(quota);w=\(windowSeconds)"
    }

    /// `RateLimit` (5): `r` requests remaining, `t` seconds until the
    /// quota is whole again. Written into one string of its final size: an
    /// interpolation makes two allocations on every rate-limited response.
    public static func stateField(name: String, remaining: Int, resetSeconds: Int) -> String {
        String(unsafeUninitializedCapacity: name.utf8.count + 2 * 20 + 8) { buffer in
            var at = 0
            func append(_ bytes: some Sequence<UInt8>) {
                for byte in bytes {
                    buffer[at] = byte
                    at += 1
                }
            }
            append(CollectionOfOne(UInt8(ascii: "\"")))
            append(name.utf8)
            append("\";r=".utf8)
            writeDecimal(remaining, into: buffer, at: &at)
            append(";t=".utf8)
            writeDecimal(resetSeconds, into: buffer, at: &at)
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

/// When a delivery's attempts are due: `delays[n]` seconds after the
/// attempt before it (the first, `delays[0]`, after the event), each with
/// ±20 % jitter so that deliveries failing together (a receiver down for a
/// minute) do not all come back in the same instant. After the last one
/// the delivery is `failed`. The default is Standard Webhooks' schedule:
/// at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h.
public struct WebhookRetrySchedule: Sendable, Hashable {
    public static let standard = WebhookRetrySchedule(seconds: [0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400])!
    /// The longest wait a `Retry-After` may ask for: a receiver cannot hold
    /// a delivery back for longer than the schedule's longest step.
    public static let retryAfterCap: Int64 = 86_400_000

    /// Seconds, one per attempt.
    public let seconds: [Int64]

    /// Nil unless every step is 0 … 7 days and there is at least one.
    public init?(seconds: [Int64]) {
        guard !seconds.isEmpty, seconds.allSatisfy({ (0...604_800).contains($0) }) else { return nil }
        self.seconds = seconds
    }

    public var attempts: Int { seconds.count }

    /// The wait in milliseconds before attempt `made + 1`, after `made`
    /// attempts failed (nil: none is left); `unit` is a uniform draw in
    /// [0, 1). A `Retry-After` that asks for longer (at most
    /// `retryAfterCap`) is waited instead.
    public func delay(afterAttempts made: Int, unit: Double, retryAfter: Int64? = nil) -> Int64? {
        guard made >= 0, made < seconds.count else { return nil }
        let jittered = Int64(Double(seconds[made] * 1000) * (0.8 + 0.4 * unit))
        guard let retryAfter else { return jittered }
        return max(jittered, min(retryAfter, Self.retryAfterCap))
    }
}

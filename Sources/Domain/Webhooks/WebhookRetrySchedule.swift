/// When a delivery's attempts are due: step `n` is the wait before attempt
/// `n + 1`, after the attempt before it (the first step after the event),
/// each with ±20 % jitter so that deliveries failing together (a receiver
/// down for a minute) do not all come back in the same instant. After the
/// last one the delivery is `failed`. The default is Standard Webhooks'
/// schedule: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h.
public struct WebhookRetrySchedule: Sendable, Hashable {
    public static let standard = WebhookRetrySchedule(seconds: [0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400])!
    /// The longest wait a `Retry-After` may ask for: a receiver cannot hold
    /// a delivery back for longer than the schedule's longest step.
    public static let retryAfterCap: Int64 = 86_400_000

    /// The steps, in milliseconds, one per attempt.
    public let milliseconds: [Int64]

    /// Nil unless every step is 0 … 7 days (fractions of a second allowed)
    /// and there is at least one.
    public init?(seconds: [Double]) {
        guard !seconds.isEmpty, seconds.allSatisfy({ $0.isFinite && (0...604_800).contains($0) }) else { return nil }
        milliseconds = seconds.map { Int64(($0 * 1000).rounded()) }
    }

    public var attempts: Int { milliseconds.count }

    /// The wait in milliseconds before attempt `made + 1`, after `made`
    /// attempts failed (nil: none is left); `unit` is a uniform draw in
    /// [0, 1). A `Retry-After` that asks for longer (at most
    /// `retryAfterCap`) is waited instead.
    public func delay(afterAttempts made: Int, unit: Double, retryAfter: Int64? = nil) -> Int64? {
        guard made >= 0, made < milliseconds.count else { return nil }
        let jittered = Int64(Double(milliseconds[made]) * (0.8 + 0.4 * unit))
        guard let retryAfter else { return jittered }
        return max(jittered, min(retryAfter, Self.retryAfterCap))
    }
}

/// When a failed attempt runs again: exponential in the attempt number,
/// `min(2^attempt s, 1 h)`, with ±25 % jitter so that jobs failing together
/// (a provider down for a minute) do not all come back in the same
/// instant. A periodic kind's retry comes no later than its next regular run.
public enum JobBackoff {
    public static let cap: Int64 = 3_600_000

    /// The delay in milliseconds after attempt `attempt` (1 for the first)
    /// failed; `unit` is a uniform draw in [0, 1).
    public static func delay(afterAttempt attempt: Int, interval: Int64?, unit: Double) -> Int64 {
        let exponent = min(max(attempt, 0), 22)
        let base = min(Int64(1) << exponent * 1000, cap)
        let jittered = Int64(Double(base) * (0.75 + 0.5 * unit))
        return interval.map { min(jittered, $0) } ?? jittered
    }
}

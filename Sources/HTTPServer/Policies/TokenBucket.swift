/// One client's token bucket: `capacity` tokens, refilled at `rate` per
/// second, one taken per request. Pure: time comes in as monotonic
/// nanoseconds, so tests drive it with a fake clock.
public struct TokenBucket: Sendable, Equatable {
    public enum Decision: Sendable, Equatable {
        /// `remaining` whole tokens left; full again in `resetSeconds`.
        case allowed(remaining: Int, resetSeconds: Int)
        /// Empty: the next token comes in `retryAfterSeconds` (at least 1).
        case refused(retryAfterSeconds: Int)
    }

    public let rate: Double
    public let capacity: Double
    public private(set) var tokens: Double
    public private(set) var updatedAt: Int64

    /// A new bucket starts full.
    public init(rate: Double, capacity: Int, now: Int64) {
        self.rate = rate
        self.capacity = Double(capacity)
        tokens = Double(capacity)
        updatedAt = now
    }

    public mutating func take(now: Int64) -> Decision {
        refill(now: now)
        guard tokens >= 1 else { return .refused(retryAfterSeconds: retryAfterSeconds) }
        tokens -= 1
        return .allowed(remaining: Int(tokens), resetSeconds: secondsUntilFull)
    }

    /// Takes up to `count` whole tokens at once, for a loop's lease
    /// (``TokenLeases``): as many as there are, 0 when fewer than one.
    public mutating func take(upTo count: Int, now: Int64) -> Int {
        refill(now: now)
        let granted = min(count, Int(tokens))
        tokens -= Double(granted)
        return granted
    }

    /// Unspent tokens of a lease, back in the bucket; never above its
    /// capacity (tokens a full bucket would have refilled are not owed).
    public mutating func giveBack(_ count: Int, now: Int64) {
        refill(now: now)
        tokens = min(capacity, tokens + Double(count))
    }

    /// The refusal `take` would give now: the next token comes in this many seconds (at least 1).
    public var retryAfterSeconds: Int { max(1, Int(((1 - tokens) / rate).rounded(.up))) }

    /// Whether the bucket is full at `now`: forgetting it loses nothing,
    /// since a new bucket starts full.
    public func isFull(at now: Int64) -> Bool {
        var copy = self
        copy.refill(now: now)
        return copy.tokens >= capacity
    }

    private var secondsUntilFull: Int { Int(((capacity - tokens) / rate).rounded(.up)) }

    private mutating func refill(now: Int64) {
        guard now > updatedAt else { return }
        tokens = min(capacity, tokens + Double(now - updatedAt) / 1_000_000_000 * rate)
        updatedAt = now
    }
}

import Synchronization

/// Token buckets by client key (an address for the server's own limit, a
/// user id for the application's `per-user` one). Shared by every event loop, so split into
/// shards, each behind its own lock. Memory is bounded: a shard at its
/// share of `maxTrackedClients` first forgets buckets that have refilled
/// (a new one would start full anyway), then, if every one is busy, the
/// least recently used: that client gets a fresh burst, the price of a
/// bound under an attack from many addresses.
public final class RateLimiter: Sendable {
    public let policy: RateLimitPolicy
    /// `policy.policyField`, made once: it is the same on every response.
    public let policyField: String
    private let shards: [Shard]
    private let perShard: Int
    private let refusedCount = Atomic<Int>(0)
    private let allowedCount = Atomic<Int>(0)

    public init(policy: RateLimitPolicy, shards count: Int = 16) {
        self.policy = policy
        policyField = policy.policyField
        shards = (0..<count).map { _ in Shard() }
        perShard = max(1, policy.maxTrackedClients / count)
    }

    /// Requests refused and allowed so far, for metrics.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }
    public var allowed: Int { allowedCount.load(ordering: .relaxed) }

    /// Buckets held now, across shards.
    public var trackedClients: Int { shards.reduce(0) { $0 + $1.buckets.withLock { $0.count } } }

    /// The `RateLimit` field for `decision` (a refusal has 0 remaining
    /// until its retry).
    public func stateField(for decision: TokenBucket.Decision) -> String {
        switch decision {
        case .allowed(let remaining, let reset): policy.stateField(remaining: remaining, resetSeconds: reset)
        case .refused(let retryAfter): policy.stateField(remaining: 0, resetSeconds: retryAfter)
        }
    }

    /// `take(_:now:)` on the server's monotonic clock.
    public func take(_ key: String) -> TokenBucket.Decision {
        take(key, now: MonotonicClock.nowNanoseconds())
    }

    public func take(_ key: String, now: Int64) -> TokenBucket.Decision {
        let shard = shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))]
        // The lock is held for one hash lookup, updated in place: every
        // request of a benchmark from one address takes this same lock from
        // both loops, and a contended Mutex here waits in the kernel (PI
        // futex; perf showed _lockSlow and rt_mutex waits on /products/{id}).
        let decision = shard.buckets.withLock { buckets -> TokenBucket.Decision in
            if buckets.count >= perShard, buckets[key] == nil { evict(from: &buckets, now: now) }
            return buckets[key, default: TokenBucket(rate: policy.requestsPerSecond, capacity: policy.burst, now: now)]
                .take(now: now)
        }
        if case .refused = decision {
            refusedCount.add(1, ordering: .relaxed)
        } else {
            allowedCount.add(1, ordering: .relaxed)
        }
        return decision
    }

    /// One lock's share of the buckets (a Mutex cannot sit in an array).
    private final class Shard: Sendable {
        let buckets = Mutex<[String: TokenBucket]>([:])
    }

    private func evict(from buckets: inout [String: TokenBucket], now: Int64) {
        buckets = buckets.filter { !$0.value.isFull(at: now) }
        guard buckets.count >= perShard,
              let oldest = buckets.min(by: { $0.value.updatedAt < $1.value.updatedAt }) else { return }
        buckets[oldest.key] = nil
    }
}

import Sharding
import Synchronization

/// Token buckets by client key (an address for the server's own limit, a
/// user id for the application's `per-user` one). Shared by every event loop, so split into
/// shards, each behind its own lock. Memory is bounded: a shard at its
/// share of `maxTrackedClients` first forgets buckets that have refilled
/// (a new one would start full anyway), then, if every one is busy, the
/// least recently used: that client gets a fresh burst, the price of a
/// bound under an attack from many addresses.
///
/// With a ``SharedTokenStore`` the buckets are the store's, shared by every
/// process on it (``ClusterTokens``), and these local ones serve only while
/// the store cannot answer.
public final class RateLimiter: Sendable {
    public let policy: RateLimitPolicy
    /// `policy.policyField`, made once: it is the same on every response.
    public let policyField: String
    /// Tokens an event loop takes from a bucket at once (``TokenLeases``):
    /// burst/1024, between 1 and 64. Each loop holds at most one lease per
    /// client, so the limit stays exact to within that many tokens a loop;
    /// a burst under 2048 gets leases of one token, the exact bucket.
    public let leaseSize: Int
    /// How long a lease's tokens may sit unspent on a loop before they go
    /// back to the bucket (the loop's 250 ms timer returns them).
    public let leaseLifetime: Int64
    /// The cluster-wide count, when a store was given.
    let cluster: ClusterTokens?
    private let shards: LockShards<[String: TokenBucket]>
    private let perShard: Int
    private let refusedCount = Atomic<Int>(0)
    private let allowedCount = Atomic<Int>(0)

    /// `shared`: count cluster-wide through that store, taking
    /// `sharedLease` tokens at once (``defaultSharedLease(for:)`` if nil).
    public init(policy: RateLimitPolicy, shards count: Int = 16, leaseSize: Int? = nil,
                leaseLifetime: Int64 = 1_000_000_000, shared: (any SharedTokenStore)? = nil, sharedLease: Int? = nil) {
        self.policy = policy
        policyField = policy.policyField
        self.leaseSize = max(1, leaseSize ?? min(64, policy.burst / 1024))
        self.leaseLifetime = leaseLifetime
        shards = LockShards(count: count) { [:] }
        perShard = max(1, policy.maxTrackedClients / shards.count)
        cluster = shared.map {
            ClusterTokens(store: $0, policy: policy, lease: sharedLease ?? Self.defaultSharedLease(for: policy),
                          shards: count)
        }
    }

    /// A tenth of the burst, or a tenth of a second of the rate if more
    /// (a stock must last from one exchange to the next, or a busy key is
    /// refused while the cluster still has tokens for it); never above
    /// half the burst. The processes together may exceed the limit by two
    /// leases each (``ClusterTokens``).
    public static func defaultSharedLease(for policy: RateLimitPolicy) -> Int {
        max(1, min(policy.burst / 2, max(policy.burst / 10, Int(policy.requestsPerSecond / 10))))
    }

    /// Tokens this process takes from the shared bucket at once (nil: no store).
    public var sharedLease: Int? { cluster?.lease }

    /// Exchanges with the shared store until cancelled (returns at once
    /// without one): run it beside the server.
    public func shareTokens() async {
        await cluster?.run()
    }

    /// Leases granted by the shared store, and exchanges with it that failed.
    public var sharedLeases: Int { cluster?.leases ?? 0 }
    public var sharedFailures: Int { cluster?.failures ?? 0 }

    /// Whether requests count cluster-wide now (false: on this process's
    /// own buckets, with no store or while it cannot answer).
    public var isCountingShared: Bool { cluster?.isShared(now: MonotonicClock.nowNanoseconds()) ?? false }

    /// Requests refused and allowed so far, for metrics.
    public var refused: Int { refusedCount.load(ordering: .relaxed) }
    public var allowed: Int { allowedCount.load(ordering: .relaxed) }

    /// Buckets held now, across shards.
    public var trackedClients: Int {
        shards.map(\.count).reduce(0, +) + (cluster?.trackedClients ?? 0)
    }

    /// `take(_:now:)` on the server's monotonic clock.
    public func take(_ key: String) -> TokenBucket.Decision {
        take(key, now: MonotonicClock.nowNanoseconds())
    }

    /// One token for `key` under its shard's lock. The server's own limit
    /// goes through each loop's ``TokenLeases`` instead: every request from
    /// one address would take this same lock from every loop, and a
    /// contended Mutex waits in the kernel (a PI futex).
    public func take(_ key: String, now: Int64) -> TokenBucket.Decision {
        let decision = if let cluster, cluster.isShared(now: now) {
            sharedDecision(cluster.take(key, upTo: 1, now: now))
        } else {
            withBucket(key, now: now) { $0.take(now: now) }
        }
        if case .refused = decision {
            refusedCount.add(1, ordering: .relaxed)
        } else {
            allowedCount.add(1, ordering: .relaxed)
        }
        return decision
    }

    /// What a loop's lease got from `key`'s bucket: `tokens` (0: refused,
    /// the next in `retryAfterSeconds`) and what the bucket kept.
    struct Grant {
        let tokens: Int
        let bucketLeft: Double
        let retryAfterSeconds: Int
    }

    /// Under one lock: gives back a loop's `returning` unspent tokens of
    /// `key`'s previous lease, then leases up to `leaseSize` more. `allowed`
    /// requests the loop admitted from leases since it last reported are
    /// counted now, so the metric lags by at most a lease per loop, or the
    /// loop's 250 ms timer.
    func lease(_ key: String, returning: Int, allowed: Int, now: Int64) -> Grant {
        countAllowed(allowed)
        if let cluster, cluster.isShared(now: now) {
            cluster.giveBack(key, tokens: returning)
            let grant = cluster.take(key, upTo: leaseSize, now: now)
            if grant.tokens == 0 { refusedCount.add(1, ordering: .relaxed) }
            return grant
        }
        let grant = withBucket(key, now: now) { bucket in
            if returning > 0 { bucket.giveBack(returning, now: now) }
            let tokens = bucket.take(upTo: leaseSize, now: now)
            return Grant(tokens: tokens, bucketLeft: bucket.tokens, retryAfterSeconds: bucket.retryAfterSeconds)
        }
        if grant.tokens == 0 { refusedCount.add(1, ordering: .relaxed) }
        return grant
    }

    /// Unspent tokens of a lease that expired, back to `key`'s bucket (a
    /// bucket forgotten meanwhile is full again: nothing to give back).
    func giveBack(_ key: String, tokens: Int, now: Int64) {
        guard tokens > 0 else { return }
        if let cluster, cluster.isShared(now: now) { return cluster.giveBack(key, tokens: tokens) }
        shards.withLock(for: key) { buckets in
            guard let index = buckets.index(forKey: key) else { return }
            buckets.values[index].giveBack(tokens, now: now)
        }
    }

    /// One request's token from the cluster's stock, as a single bucket
    /// would answer (what the shared bucket and this stock hold).
    private func sharedDecision(_ grant: Grant) -> TokenBucket.Decision {
        guard grant.tokens > 0 else { return .refused(retryAfterSeconds: grant.retryAfterSeconds) }
        let left = min(Double(policy.burst), grant.bucketLeft)
        return .allowed(remaining: Int(left),
                        resetSeconds: Int(((Double(policy.burst) - left) / policy.requestsPerSecond).rounded(.up)))
    }

    /// Requests a loop admitted from its leases, for the metrics.
    func countAllowed(_ count: Int) {
        if count > 0 { allowedCount.add(count, ordering: .relaxed) }
    }

    /// `body` on `key`'s bucket (a new, full one if none), in place under
    /// its shard's lock, which is held for one hash lookup.
    private func withBucket<T: Sendable>(_ key: String, now: Int64, _ body: (inout TokenBucket) -> T) -> T {
        shards.withLock(for: key) { buckets in
            if buckets.count >= perShard, buckets[key] == nil { evict(from: &buckets, now: now) }
            return body(&buckets[key, default: TokenBucket(rate: policy.requestsPerSecond, capacity: policy.burst,
                                                           now: now)])
        }
    }

    private func evict(from buckets: inout [String: TokenBucket], now: Int64) {
        buckets = buckets.filter { !$0.value.isFull(at: now) }
        guard buckets.count >= perShard,
              let oldest = buckets.min(by: { $0.value.updatedAt < $1.value.updatedAt }) else { return }
        buckets[oldest.key] = nil
    }
}

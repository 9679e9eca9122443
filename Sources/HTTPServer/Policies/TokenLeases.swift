/// One event loop's leases on a shared ``RateLimiter``: tokens taken from a
/// client's bucket in batches of `leaseSize` and spent by this loop without
/// the bucket's lock. Without them every request from one address takes
/// the same shard lock from every loop (a PI futex under contention); with
/// leases the lock is taken once per `leaseSize` requests a loop, or when a
/// lease expires.
///
/// The bound: a token is spent only once it left the shared bucket, so a
/// client never gets more than the bucket gives out, plus what a loop's
/// lease held while the bucket refilled behind it: at most `leaseSize`
/// tokens a loop above the exact limit in any window. It may be refused
/// while up to `leaseSize` tokens sit unspent in each other loop's lease,
/// until their `leaseLifetime` ends and the loop's timer gives them back.
/// `RateLimit` states this loop's view: the bucket as the lease left it,
/// refilled since, plus what the lease holds.
///
/// Touched only on its loop's thread. Holds at most `maxLeases` clients;
/// a new one beyond that first returns the expired leases, then all.
struct TokenLeases {
    let limiter: RateLimiter
    let maxLeases: Int
    private var leases: [String: Lease] = [:]
    /// Requests admitted from leases, not yet counted in the limiter's metrics.
    private var allowedSinceReport = 0

    private struct Lease {
        var tokens: Int
        /// The shared bucket's tokens when the lease was taken out of it.
        let bucketLeft: Double
        let grantedAt: Int64
    }

    init(limiter: RateLimiter, maxLeases: Int = 1024) {
        self.limiter = limiter
        self.maxLeases = maxLeases
    }

    /// Clients holding a lease now.
    var count: Int { leases.count }

    /// A token for `key`: from this loop's lease while it has one and is
    /// young, else from a new lease (the unspent rest of the old one given
    /// back in the same lock).
    mutating func take(_ key: String, now: Int64) -> TokenBucket.Decision {
        var returning = 0
        if let index = leases.index(forKey: key) {
            let lease = leases.values[index]
            if lease.tokens > 0, now - lease.grantedAt < limiter.leaseLifetime {
                leases.values[index].tokens -= 1
                allowedSinceReport += 1
                return decision(lease.bucketLeft, since: lease.grantedAt, leased: lease.tokens - 1, now: now)
            }
            returning = lease.tokens
        } else if leases.count >= maxLeases {
            returnExpired(now: now)
            if leases.count >= maxLeases { returnAll(now: now) }
        }
        let grant = limiter.lease(key, returning: returning, allowed: allowedSinceReport, now: now)
        allowedSinceReport = 0
        guard grant.tokens > 0 else {
            leases[key] = nil
            return .refused(retryAfterSeconds: grant.retryAfterSeconds)
        }
        allowedSinceReport = 1
        leases[key] = Lease(tokens: grant.tokens - 1, bucketLeft: grant.bucketLeft, grantedAt: now)
        return decision(grant.bucketLeft, since: now, leased: grant.tokens - 1, now: now)
    }

    /// Gives back what expired leases hold, and reports the requests
    /// admitted since the last report (the loop's timer, every 250 ms).
    mutating func returnExpired(now: Int64) {
        let lifetime = limiter.leaseLifetime
        if leases.values.contains(where: { now - $0.grantedAt >= lifetime }) {
            for (key, lease) in leases where now - lease.grantedAt >= lifetime {
                limiter.giveBack(key, tokens: lease.tokens, now: now)
            }
            leases = leases.filter { now - $0.value.grantedAt < lifetime }
        }
        limiter.countAllowed(allowedSinceReport)
        allowedSinceReport = 0
    }

    private mutating func returnAll(now: Int64) {
        for (key, lease) in leases { limiter.giveBack(key, tokens: lease.tokens, now: now) }
        leases.removeAll()
    }

    /// `.allowed` as a single bucket would say it: the bucket as the lease
    /// left it, refilled since (up to what the lease leaves room for),
    /// plus the lease's `leased` tokens.
    private func decision(_ bucketLeft: Double, since grantedAt: Int64, leased: Int, now: Int64) -> TokenBucket.Decision {
        let policy = limiter.policy
        let capacity = Double(policy.burst)
        let refilled = bucketLeft + Double(now - grantedAt) / 1_000_000_000 * policy.requestsPerSecond
        let total = min(capacity, refilled + Double(leased))
        return .allowed(remaining: Int(total),
                        resetSeconds: Int(((capacity - total) / policy.requestsPerSecond).rounded(.up)))
    }
}

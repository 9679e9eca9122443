import Sharding
import Synchronization

/// A rate limit counted across processes: this process's stock of tokens
/// per key, leased from a ``SharedTokenStore`` that every process takes
/// from. A request spends only what is in the stock and never waits on the
/// store: ``run()`` exchanges in the background for every key whose stock
/// fell to half a lease or below (the stock refilled back to `lease`), one
/// exchange at a time, the next as soon as the last ended and a key is
/// queued (so they batch under load), and gives an idle key's unspent
/// tokens back.
///
/// ## The tolerance
/// A key never seen here has no stock yet, so a stock may go down to
/// `-lease` (credit) before the first lease arrives; the next exchange asks
/// for the debt with the new lease. Over any window, a process admits what
/// the shared bucket granted it in the window, plus its stock at the start
/// (at most `lease`), plus its debt at the end (at most `lease`), plus what
/// its event loops' own leases (``TokenLeases``) held then. So all
/// processes together admit at most `processes × (2 × lease + loops ×
/// (loopLease − 1))` requests above the exact limit in any window.
///
/// ## When the store cannot answer
/// An exchange that fails, or has not answered within `staleAfter`, puts the
/// limiter back on its own buckets (``RateLimiter``'s local ones, each
/// process counting alone, as with `rate_limit_scope: process`) until an
/// exchange succeeds again; the failed keys are retried every second.
///
/// Memory: at most `maxTrackedClients` keys; beyond, settled ones (nothing
/// held, nothing owed) are dropped first, then the least recently used
/// (its unspent tokens are not returned, its debt is forgiven: the price
/// of a bound under an attack from many addresses).
final class ClusterTokens: Sendable {
    let store: any SharedTokenStore
    let policy: RateLimitPolicy
    /// Tokens a process asks for at once, and the credit a key gets.
    let lease: Int
    /// An unused key's stock goes back to the store after this long.
    let idleAfter: Int64
    let staleAfter: Int64
    private let lowWater: Int
    private let shards: LockShards<[String: Stock]>
    private let perShard: Int
    private let queued = Mutex<Set<String>>([])
    private let failing = Atomic<Bool>(false)
    /// When the exchange in flight began (`Int64.min`: none in flight).
    private let exchangeSince = Atomic<Int64>(.min)
    /// Signalled when a key is queued: the exchange loop waits on it.
    private let wake: AsyncStream<Void>
    private let waker: AsyncStream<Void>.Continuation
    private let leaseCount = Atomic<Int>(0)
    private let failureCount = Atomic<Int>(0)

    struct Stock {
        /// Down to `-lease`: requests admitted on credit, owed to the store.
        var tokens: Int
        /// The shared bucket's tokens at `reportedAt`, as the last exchange said.
        var bucketLeft: Double
        var reportedAt: Int64
        var usedAt: Int64
        /// Waiting for an exchange, or in one.
        var queued: Bool
    }

    init(store: any SharedTokenStore, policy: RateLimitPolicy, lease: Int, shards count: Int = 16,
         idleAfter: Int64 = 2_000_000_000, staleAfter: Int64 = 2_000_000_000) {
        self.store = store
        self.policy = policy
        self.lease = max(1, min(lease, policy.burst))
        lowWater = self.lease / 2
        self.idleAfter = idleAfter
        self.staleAfter = staleAfter
        (wake, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        shards = LockShards(count: count) { [:] }
        perShard = max(1, policy.maxTrackedClients / shards.count)
    }

    /// Keys' bucket lease exchanges that granted tokens, and exchanges that failed.
    var leases: Int { leaseCount.load(ordering: .relaxed) }
    var failures: Int { failureCount.load(ordering: .relaxed) }

    /// Whether requests count cluster-wide now (else on the local buckets).
    func isShared(now: Int64) -> Bool {
        guard !failing.load(ordering: .relaxed) else { return false }
        let since = exchangeSince.load(ordering: .relaxed)
        return since == .min || now - since < staleAfter
    }

    var trackedClients: Int { shards.map(\.count).reduce(0, +) }

    /// Up to `count` tokens of `key`'s stock (credit included): a loop's
    /// lease, or one request's token.
    func take(_ key: String, upTo count: Int, now: Int64) -> RateLimiter.Grant {
        var wantsExchange = false
        let grant = shards.withLock(for: key) { stocks -> RateLimiter.Grant in
            if stocks[key] == nil, stocks.count >= perShard { evict(from: &stocks) }
            var stock = stocks[key] ?? Stock(tokens: 0, bucketLeft: Double(policy.burst), reportedAt: now, usedAt: now,
                                             queued: false)
            let taken = max(0, min(count, stock.tokens + lease))
            stock.tokens -= taken
            stock.usedAt = now
            if stock.tokens <= lowWater, !stock.queued {
                stock.queued = true
                wantsExchange = true
            }
            stocks[key] = stock
            let left = min(Double(policy.burst), stock.bucketLeft + Double(now - stock.reportedAt) / 1e9 * policy.requestsPerSecond)
            return RateLimiter.Grant(tokens: taken, bucketLeft: max(0, left + Double(stock.tokens)),
                                     retryAfterSeconds: max(1, Int(((1 - left) / policy.requestsPerSecond).rounded(.up))))
        }
        if wantsExchange {
            _ = queued.withLock { $0.insert(key) }
            waker.yield()
        }
        return grant
    }

    /// Unspent tokens of a loop's lease, back in the stock.
    func giveBack(_ key: String, tokens: Int) {
        guard tokens > 0 else { return }
        shards.withLock(for: key) { stocks in
            guard let index = stocks.index(forKey: key) else { return }
            stocks.values[index].tokens += tokens
        }
    }

    /// Exchanges with the store until cancelled: the queued keys whenever
    /// there are some (retried every second while the store fails), idle
    /// stocks queued every half `idleAfter`, the store's refilled buckets
    /// pruned every fill time (at most once a minute).
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.exchangeWhenQueued() }
            group.addTask { await self.sweep() }
        }
    }

    private func exchangeWhenQueued() async {
        for await _ in wake {
            await exchangeQueued()
            if failing.load(ordering: .relaxed) {
                try? await Task.sleep(for: .seconds(1))
                waker.yield()
            }
        }
    }

    private func sweep() async {
        let fillNanoseconds = Int64(Double(policy.burst) / policy.requestsPerSecond * 1e9)
        var prunedAt = MonotonicClock.nowNanoseconds()
        while !Task.isCancelled {
            try? await Task.sleep(for: .nanoseconds(idleAfter / 2))
            let now = MonotonicClock.nowNanoseconds()
            if queueIdle(now: now) { waker.yield() }
            if now - prunedAt >= max(fillNanoseconds, 60_000_000_000) {
                try? await store.prune(policy)
                prunedAt = now
            }
        }
    }

    /// One round: every queued key's exchange, in batches of `batch`,
    /// idle stocks judged at `now`.
    func exchangeQueued(batch: Int = 500, now: Int64 = MonotonicClock.nowNanoseconds()) async {
        var keys = queued.withLock { queued in
            defer { queued.removeAll() }
            return Array(queued)
        }
        while !keys.isEmpty {
            let requests = keys.prefix(batch).compactMap { request(for: $0, now: now) }
            keys.removeFirst(min(batch, keys.count))
            guard !requests.isEmpty else { continue }
            exchangeSince.store(now, ordering: .relaxed)
            do {
                let grants = try await store.exchange(policy, requests)
                exchangeSince.store(.min, ordering: .relaxed)
                failing.store(false, ordering: .relaxed)
                for request in requests { apply(request, grants[request.key], now: now) }
            } catch {
                exchangeSince.store(.min, ordering: .relaxed)
                failing.store(true, ordering: .relaxed)
                failureCount.add(1, ordering: .relaxed)
                for request in requests { restore(request) }
                queued.withLock { queued in
                    for key in keys { queued.insert(key) }
                    for request in requests { queued.insert(request.key) }
                }
                return
            }
        }
    }

    /// What `key` asks now: refilled back to `lease`, or, idle, its unspent
    /// tokens back and its debt paid. Nil when there is nothing to ask.
    private func request(for key: String, now: Int64) -> SharedTokenRequest? {
        shards.withLock(for: key) { stocks -> SharedTokenRequest? in
            guard let index = stocks.index(forKey: key) else { return nil }
            let stock = stocks.values[index]
            guard now - stock.usedAt >= idleAfter else {
                return SharedTokenRequest(key: key, want: lease - stock.tokens, returning: 0)
            }
            guard stock.tokens != 0 else {
                stocks.remove(at: index)
                return nil
            }
            let returning = max(0, stock.tokens)
            stocks.values[index].tokens -= returning
            return SharedTokenRequest(key: key, want: max(0, -stock.tokens), returning: returning)
        }
    }

    private func apply(_ request: SharedTokenRequest, _ grant: SharedTokenGrant?, now: Int64) {
        if let grant, grant.granted > 0 { leaseCount.add(1, ordering: .relaxed) }
        shards.withLock(for: request.key) { stocks in
            guard let index = stocks.index(forKey: request.key) else { return }
            stocks.values[index].tokens += grant?.granted ?? 0
            if let grant {
                stocks.values[index].bucketLeft = grant.bucketLeft
                stocks.values[index].reportedAt = now
            }
            stocks.values[index].queued = false
            let stock = stocks.values[index]
            if stock.tokens == 0, now - stock.usedAt >= idleAfter { stocks.remove(at: index) }
        }
    }

    /// A failed exchange's given-back tokens, back in the stock.
    private func restore(_ request: SharedTokenRequest) {
        giveBack(request.key, tokens: request.returning)
    }

    /// Queues the idle stocks; whether there were any.
    @discardableResult
    func queueIdle(now: Int64) -> Bool {
        let idle = shards.map { stocks -> [String] in
            var idle: [String] = []
            for index in stocks.indices where !stocks.values[index].queued && now - stocks.values[index].usedAt >= idleAfter {
                stocks.values[index].queued = true
                idle.append(stocks.keys[index])
            }
            return idle
        }.flatMap { $0 }
        guard !idle.isEmpty else { return false }
        queued.withLock { queued in for key in idle { queued.insert(key) } }
        return true
    }

    /// Settled stocks first (nothing held, nothing owed, no exchange
    /// pending), then the least recently used.
    private func evict(from stocks: inout [String: Stock]) {
        stocks = stocks.filter { $0.value.tokens != 0 || $0.value.queued }
        guard stocks.count >= perShard,
              let oldest = stocks.min(by: { $0.value.usedAt < $1.value.usedAt }) else { return }
        stocks[oldest.key] = nil
    }
}

import Synchronization
import Testing
@testable import HTTPServer

/// Rate limits counted across processes: two limiters stand for two
/// processes, leasing from one store of token buckets (in memory here, the
/// same arithmetic as the `rate_buckets` table; the table itself is tested
/// in CapabilitiesTests, two servers on one database in AxiomServerTests).
/// Time is a number passed in; exchanges run when the test says so.
@Suite struct ClusterTokensTests {
    static let second: Int64 = 1_000_000_000
    /// 100 requests, 1 token per 1000 s: nothing refills during a test.
    static let policy = RateLimitPolicy(requestsPerSecond: 0.001, burst: 100)

    /// The shared buckets, behind one lock, on a clock the test sets.
    final class MemoryTokenStore: SharedTokenStore {
        struct Unavailable: Error {}
        let buckets = Mutex<[String: TokenBucket]>([:])
        let failing = Atomic<Bool>(false)
        let exchanges = Atomic<Int>(0)
        let now = Atomic<Int64>(0)

        func exchange(_ policy: RateLimitPolicy, _ requests: [SharedTokenRequest]) async throws -> [String: SharedTokenGrant] {
            guard !failing.load(ordering: .relaxed) else { throw Unavailable() }
            exchanges.add(1, ordering: .relaxed)
            let now = now.load(ordering: .relaxed)
            return buckets.withLock { buckets in
                var grants: [String: SharedTokenGrant] = [:]
                for request in requests {
                    var bucket = buckets[request.key]
                        ?? TokenBucket(rate: policy.requestsPerSecond, capacity: policy.burst, now: now)
                    if request.returning > 0 { bucket.giveBack(request.returning, now: now) }
                    let granted = bucket.take(upTo: request.want, now: now)
                    grants[request.key] = SharedTokenGrant(granted: granted, bucketLeft: bucket.tokens)
                    buckets[request.key] = bucket
                }
                return grants
            }
        }

        func prune(_ policy: RateLimitPolicy) async throws {}

        func tokens(_ key: String) -> Double? { buckets.withLock { $0[key]?.tokens } }
    }

    /// Rounds of `perRound` requests on every loop of every process, then
    /// one exchange each, until three rounds in a row admit nothing;
    /// returns the requests admitted.
    static func drain(_ processes: [RateLimiter], loops: Int, _ key: String, perRound: Int = 7) async -> Int {
        var books = processes.map { limiter in (0..<loops).map { _ in TokenLeases(limiter: limiter) } }
        var admitted = 0
        var quietRounds = 0
        for _ in 0..<1_000 where quietRounds < 3 {
            var round = 0
            for process in books.indices {
                for loop in books[process].indices {
                    for _ in 0..<perRound {
                        if case .allowed = books[process][loop].take(key, now: 0) { round += 1 }
                    }
                }
            }
            for limiter in processes { await limiter.cluster?.exchangeQueued(now: 0) }
            admitted += round
            quietRounds = round == 0 ? quietRounds + 1 : 0
        }
        return admitted
    }

    @Test func twoProcessesTogetherAdmitTheLimitPlusAtMostTheStatedTolerance() async {
        let store = MemoryTokenStore()
        let lease = 5
        let loopLease = 4
        let processes = (0..<2).map { _ in
            RateLimiter(policy: Self.policy, leaseSize: loopLease, shared: store, sharedLease: lease)
        }
        let admitted = await Self.drain(processes, loops: 2, "10.0.0.1")
        // processes × (2 × lease + loops × (loopLease − 1)) = 2 × (10 + 6).
        let tolerance = 2 * (2 * lease + 2 * (loopLease - 1))
        #expect(admitted >= Self.policy.burst)
        #expect(admitted <= Self.policy.burst + tolerance)
        #expect(store.tokens("10.0.0.1").map { $0 < 1 } == true)
        #expect(processes.allSatisfy { $0.isCountingShared && $0.sharedLeases > 0 && $0.sharedFailures == 0 })

        // Each process counting alone (rate_limit_scope: process) admits the limit once each.
        let alone = (0..<2).map { _ in RateLimiter(policy: Self.policy, leaseSize: loopLease) }
        #expect(await Self.drain(alone, loops: 2, "10.0.0.1") == 2 * Self.policy.burst)
    }

    @Test func aNewKeyIsServedOnCreditUntilItsFirstLeaseArrives() async {
        let store = MemoryTokenStore()
        let limiter = RateLimiter(policy: Self.policy, shared: store, sharedLease: 5)
        for _ in 0..<5 {
            guard case .allowed = limiter.take("u", now: 0) else { Issue.record("refused on credit"); return }
        }
        #expect(limiter.take("u", now: 0) == .refused(retryAfterSeconds: 1))
        #expect(store.exchanges.load(ordering: .relaxed) == 0)
        await limiter.cluster?.exchangeQueued(now: 0)
        // The lease paid the 5 spent on credit and brought 5 more.
        #expect(store.tokens("u") == 90)
        for _ in 0..<5 {
            guard case .allowed = limiter.take("u", now: 0) else { Issue.record("refused with a stock"); return }
        }
    }

    @Test func anIdleKeysUnspentTokensGoBackToTheSharedBucket() async throws {
        let store = MemoryTokenStore()
        let limiter = RateLimiter(policy: Self.policy, shared: store, sharedLease: 5)
        let cluster = try #require(limiter.cluster)
        #expect(limiter.take("u", now: 0) == .allowed(remaining: 99, resetSeconds: 1000))
        await cluster.exchangeQueued(now: 0)
        #expect(store.tokens("u") == 94)
        #expect(limiter.trackedClients == 1)
        // Unused for longer than idleAfter: its 5 unspent tokens go back, and the key is forgotten.
        let later = cluster.idleAfter
        cluster.queueIdle(now: later)
        await cluster.exchangeQueued(now: later)
        #expect(store.tokens("u") == 99)
        #expect(limiter.trackedClients == 0)
    }

    @Test func aFailingStoreFallsBackToTheProcesssOwnBucketsNeverToNoLimitAndBack() async {
        let store = MemoryTokenStore()
        store.failing.store(true, ordering: .relaxed)
        let limiter = RateLimiter(policy: Self.policy, shared: store, sharedLease: 5)
        #expect(limiter.isCountingShared)
        _ = limiter.take("u", now: 0)
        await limiter.cluster?.exchangeQueued(now: 0)
        #expect(!limiter.isCountingShared)
        #expect(limiter.sharedFailures == 1)
        // The local bucket: the limit once, then refusals.
        var admitted = 0
        for _ in 0..<150 { if case .allowed = limiter.take("u", now: 0) { admitted += 1 } }
        #expect(admitted == Self.policy.burst)
        // The failed key is retried; once the store answers, the count is shared again.
        store.failing.store(false, ordering: .relaxed)
        await limiter.cluster?.exchangeQueued(now: 0)
        #expect(limiter.isCountingShared)
        #expect(store.tokens("u") == 94)
    }

    /// A store whose exchange answers only when the test lets it.
    final class SilentTokenStore: SharedTokenStore {
        let waiting = Mutex<CheckedContinuation<Void, Never>?>(nil)

        func exchange(_ policy: RateLimitPolicy, _ requests: [SharedTokenRequest]) async throws -> [String: SharedTokenGrant] {
            await withCheckedContinuation { continuation in waiting.withLock { $0 = continuation } }
            return [:]
        }

        func prune(_ policy: RateLimitPolicy) async throws {}

        func answer() -> Bool {
            guard let continuation = waiting.withLock({ $0.take() }) else { return false }
            continuation.resume()
            return true
        }
    }

    @Test func anExchangeThatDoesNotAnswerIsNoReasonToRefuse() async throws {
        let store = SilentTokenStore()
        let limiter = RateLimiter(policy: Self.policy, shared: store, sharedLease: 5)
        let cluster = try #require(limiter.cluster)
        _ = limiter.take("u", now: 0)
        let exchange = Task { await cluster.exchangeQueued(now: 0) }
        // In flight since 0: shared until staleAfter, then the local buckets count.
        while store.waiting.withLock({ $0 == nil }) { await Task.yield() }
        #expect(cluster.isShared(now: cluster.staleAfter - 1))
        #expect(!cluster.isShared(now: cluster.staleAfter))
        var admitted = 0
        for _ in 0..<10 { if case .allowed = limiter.take("u", now: cluster.staleAfter) { admitted += 1 } }
        #expect(admitted == 10)
        #expect(store.answer())
        await exchange.value
        #expect(cluster.isShared(now: cluster.staleAfter))
    }
}

import Testing
import TestSupport
@testable import HTTPServer

/// Per-loop token leases on one shared limiter: two books stand for two
/// event loops, and time is a number passed in (no clock is read).
@Suite struct TokenLeasesTests {
    static let second: Int64 = 1_000_000_000

    /// Drains `key` through the books in turn until every one is refused; returns the requests allowed.
    static func drain(_ books: inout [TokenLeases], _ key: String, now: Int64) -> Int {
        var allowed = 0
        var refusedInARow = 0
        var index = 0
        while refusedInARow < books.count, allowed < 100_000 {
            if case .allowed = books[index].take(key, now: now) {
                allowed += 1
                refusedInARow = 0
            } else {
                refusedInARow += 1
            }
            index = (index + 1) % books.count
        }
        return allowed
    }

    @Test func twoLoopsSpendExactlyTheBurstWhenTheyShareTheWork() {
        // 1 token per 1000 s: nothing refills during the test.
        let limiter = RateLimiter(policy: RateLimitPolicy(requestsPerSecond: 0.001, burst: 100), leaseSize: 10)
        var books = [TokenLeases(limiter: limiter), TokenLeases(limiter: limiter)]
        #expect(Self.drain(&books, "10.0.0.1", now: 0) == 100)
        for index in books.indices { books[index].returnExpired(now: 0) }
        #expect(limiter.allowed == 100)
        #expect(limiter.refused == 2)
        // Another client has its own bucket.
        #expect(books[0].take("10.0.0.2", now: 0) == .allowed(remaining: 99, resetSeconds: 1000))
    }

    @Test func aLeaseHeldByTheOtherLoopRefusesEarlyByAtMostOneLeaseUntilItExpires() {
        let limiter = RateLimiter(policy: RateLimitPolicy(requestsPerSecond: 0.001, burst: 100), leaseSize: 10,
                                  leaseLifetime: Self.second)
        var first = [TokenLeases(limiter: limiter)]
        var second = [TokenLeases(limiter: limiter)]
        #expect(first[0].take("a", now: 0) == .allowed(remaining: 99, resetSeconds: 1000))
        // The first loop holds 9 unspent tokens: the second gets the other 90, no more.
        #expect(Self.drain(&second, "a", now: 0) == 90)
        // The lease expires; the first loop's timer gives its 9 back to the bucket.
        first[0].returnExpired(now: Self.second / 2)
        #expect(Self.drain(&second, "a", now: Self.second / 2) == 0)
        first[0].returnExpired(now: Self.second)
        #expect(first[0].count == 0)
        #expect(Self.drain(&second, "a", now: Self.second) == 9)
        second[0].returnExpired(now: Self.second)
        #expect(limiter.allowed == 100)
    }

    @Test func overAdmissionAfterARefillIsBoundedByOneLeaseALoop() {
        // A long lease life shows the worst case: both loops keep their
        // leases while the bucket refills behind them.
        let limiter = RateLimiter(policy: RateLimitPolicy(requestsPerSecond: 10, burst: 100), leaseSize: 10,
                                  leaseLifetime: 100 * Self.second)
        var books = [TokenLeases(limiter: limiter), TokenLeases(limiter: limiter)]
        #expect(books[0].take("a", now: 0) == .allowed(remaining: 99, resetSeconds: 1))
        // The second loop's view: the bucket as its lease left it (80) and its own 9.
        #expect(books[1].take("a", now: 0) == .allowed(remaining: 89, resetSeconds: 2))
        // 10 s later the bucket is full again (100) and the leases still hold 9 each.
        let burst = Self.drain(&books, "a", now: 10 * Self.second)
        #expect(burst == 118)
        #expect(burst <= 100 + 2 * limiter.leaseSize)
    }

    @Test func leasesOfOneTokenAreTheExactBucket() {
        // burst / 1024 < 1: a lease is one token, every take is the shared bucket's.
        let limiter = RateLimiter(policy: RateLimitPolicy(requestsPerSecond: 2, burst: 5))
        #expect(limiter.leaseSize == 1)
        var books = [TokenLeases(limiter: limiter), TokenLeases(limiter: limiter)]
        var exact = TokenBucket(rate: 2, capacity: 5, now: 0)
        var generator = SplitMix64(seed: 3)
        var now: Int64 = 0
        for step in 0..<2000 {
            now += Int64(generator.next() % UInt64(Self.second / 3))
            #expect(books[step % 2].take("a", now: now) == exact.take(now: now), "step \(step)")
        }
    }

    @Test func theDefaultLeaseIsABurstOver1024AtMost64() {
        #expect(RateLimiter(policy: RateLimitPolicy(requestsPerSecond: 100_000, burst: 200_000)).leaseSize == 64)
        #expect(RateLimiter(policy: RateLimitPolicy(requestsPerSecond: 100, burst: 10_240)).leaseSize == 10)
        #expect(RateLimiter(policy: RateLimitPolicy(requestsPerSecond: 1, burst: 2)).leaseSize == 1)
    }

    @Test func aBookHoldsAtMostItsLeasesAndGivesBackWhatItDrops() {
        let limiter = RateLimiter(policy: RateLimitPolicy(requestsPerSecond: 0.001, burst: 100), leaseSize: 10)
        var book = TokenLeases(limiter: limiter, maxLeases: 4)
        for index in 0..<10 { _ = book.take("client-\(index)", now: 0) }
        #expect(book.count <= 4)
        // client-0's lease was dropped with its 9 unspent tokens given back: its bucket holds 99 again.
        var other = [TokenLeases(limiter: limiter)]
        #expect(Self.drain(&other, "client-0", now: 0) == 99)
    }
}

import Testing
import UserClient

/// The throttle's policy on its own, with time in milliseconds moved by the
/// test: who waits how long after which failures.
@Suite struct LoginThrottleTests {
    static let victim = "victim@example.com"

    /// Fails an admitted attempt (the throttle counts it when admitted).
    private func fail(_ throttle: inout LoginThrottle, _ account: String, from address: String, at now: Int64) {
        #expect(throttle.admit(account: account, address: address, now: now) == nil, "\(address) was refused at \(now)")
    }

    /// The owner signed in from `address` at `now`.
    private func signedIn(_ throttle: inout LoginThrottle, _ account: String, from address: String, at now: Int64) {
        #expect(throttle.admit(account: account, address: address, now: now) == nil)
        throttle.succeeded(account: account, address: address, now: now)
    }

    @Test func anOwnerAtAnAddressTheySignedInFromIsNeverHeldWhateverIsSprayedAtTheirAccount() {
        var throttle = LoginThrottle(policy: LoginThrottle.Policy())
        signedIn(&throttle, Self.victim, from: "owner", at: 0)
        // 200 addresses, each failing for the victim as often as allowed,
        // over five minutes.
        var now: Int64 = 0
        var failures = 0
        for round in 0..<300 {
            now = Int64(round) * 1000
            for bot in 0..<200 where throttle.admit(account: Self.victim, address: "bot\(bot)", now: now) == nil {
                failures += 1
            }
        }
        #expect(failures > 10)
        // The owner's address has not failed: no wait at all (before: 15 min).
        #expect(throttle.admit(account: Self.victim, address: "owner", now: now) == nil)
    }

    @Test func anOwnerWhoMistypedWaitsAtMostTheCapAfterTheirOwnLastFailure() {
        var throttle = LoginThrottle(policy: LoginThrottle.Policy())
        signedIn(&throttle, Self.victim, from: "owner", at: 0)
        for bot in 0..<50 { _ = throttle.admit(account: Self.victim, address: "bot\(bot)", now: 0) }
        fail(&throttle, Self.victim, from: "owner", at: 1_000)
        // Fresh addresses keep failing every 100 ms: the account's last
        // failure stays recent, the owner's wait does not grow.
        var waits: [Int] = []
        for step in 1..<300 {
            let now = 1_000 + Int64(step) * 100
            _ = throttle.admit(account: Self.victim, address: "fresh\(step)", now: now)
            if step % 50 == 0, let wait = throttle.admit(account: Self.victim, address: "owner", now: now) { waits.append(wait) }
        }
        #expect(waits == [25, 20, 15, 10, 5])
        // 30 s after the owner's own failure, in spite of 299 more since.
        #expect(throttle.admit(account: Self.victim, address: "owner", now: 31_000) == nil)
    }

    /// Before: 120 addresses failing once each were never held (the account
    /// run held only addresses that had failed for it before).
    /// An attempt whose password was never checked (the hashing queue was
    /// full) is given back: whoever keeps the queue full cannot turn the
    /// owner's right passwords into counted failures.
    @Test func anAttemptWithdrawnUnheardCountsForNothing() {
        var throttle = LoginThrottle(policy: LoginThrottle.Policy())
        signedIn(&throttle, Self.victim, from: "owner", at: 0)
        for attempt in 0..<50 {
            #expect(throttle.admit(account: Self.victim, address: "owner", now: 1_000) == nil, "attempt \(attempt)")
            throttle.withdrawn(account: Self.victim, address: "owner")
        }
        // Counted, the same attempts are held after the pair's free ones.
        var held = false
        for _ in 0..<50 where !held { held = throttle.admit(account: Self.victim, address: "owner", now: 1_000) != nil }
        #expect(held)
    }

    @Test func guessesSpreadOverManyAddressesAreBoundedByTheAccountsFailures() {
        var throttle = LoginThrottle(policy: LoginThrottle.Policy())
        signedIn(&throttle, Self.victim, from: "owner", at: 0)
        // A new address every 100 ms for an hour, each trying once.
        var failures = 0
        var longestWait = 0
        for step in 0..<36_000 {
            if let wait = throttle.admit(account: Self.victim, address: "bot\(step)", now: Int64(step) * 100) {
                longestWait = max(longestWait, wait)
            } else {
                failures += 1
            }
        }
        // 10 free, then 1 s doubling to 5 min after the account's last
        // failure: 10 + 9 in the first 511 s, then one every 300 s.
        #expect(failures == 29)
        #expect(longestWait == 300)
        // The owner where they signed in before is not held by it.
        #expect(throttle.admit(account: Self.victim, address: "owner", now: 3_600_000) == nil)
    }

    @Test func oneAddressGuessingAtOneAccountBacksOffExponentiallyUpToTheCap() {
        var throttle = LoginThrottle(policy: LoginThrottle.Policy())
        var now: Int64 = 0
        for _ in 0..<5 { fail(&throttle, Self.victim, from: "a", at: now) }
        var waits: [Int] = []
        while waits.count < 12, let wait = throttle.admit(account: Self.victim, address: "a", now: now) {
            waits.append(wait)
            now += Int64(wait) * 1000
            fail(&throttle, Self.victim, from: "a", at: now)
        }
        // After the 900 s wait the window has passed too: the run starts over.
        #expect(waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900])
    }

    @Test func anAddressSprayingAccountsBacksOffButNotForAccountsThatSignedInThere() {
        var throttle = LoginThrottle(policy: LoginThrottle.Policy())
        // A neighbour behind the same NAT signed in from it earlier.
        #expect(throttle.admit(account: "neighbour@example.com", address: "nat", now: 0) == nil)
        throttle.succeeded(account: "neighbour@example.com", address: "nat", now: 0)
        for index in 0..<40 { _ = throttle.admit(account: "target\(index)@example.com", address: "nat", now: 1_000) }
        // 20 failures: the address backs off for accounts new to it, capped at 30 s …
        #expect(throttle.admit(account: "someone@example.com", address: "nat", now: 1_000) == 1)
        for index in 0..<40 {
            let now = 2_000 + Int64(index) * 30_000
            _ = throttle.admit(account: "more\(index)@example.com", address: "nat", now: now)
        }
        #expect(throttle.admit(account: "someone@example.com", address: "nat", now: 1_172_000) == 30)
        // … but not for the neighbour (before: 15 min for everyone behind it).
        #expect(throttle.admit(account: "neighbour@example.com", address: "nat", now: 1_172_000) == nil)
    }

    @Test func concurrentAttemptsCountBeforeTheyAreVerified() {
        var throttle = LoginThrottle(policy: LoginThrottle.Policy(pairFreeFailures: 3))
        // Three admitted and still being verified: the fourth, at the same
        // moment, already waits.
        for _ in 0..<3 { #expect(throttle.admit(account: Self.victim, address: "a", now: 0) == nil) }
        #expect(throttle.admit(account: Self.victim, address: "a", now: 0) == 1)
    }

    @Test func aSuccessEndsThePairsRunAndGivesItsAttemptBack() {
        var throttle = LoginThrottle(policy: LoginThrottle.Policy(pairFreeFailures: 3, accountFreeFailures: 5))
        for _ in 0..<2 { fail(&throttle, Self.victim, from: "home", at: 0) }
        #expect(throttle.admit(account: Self.victim, address: "home", now: 0) == nil)
        throttle.succeeded(account: Self.victim, address: "home", now: 0)
        // The pair's run is gone: three more free tries …
        for _ in 0..<3 { fail(&throttle, Self.victim, from: "home", at: 0) }
        // … and the account holds 5 failures, not 6 (which would wait 2 s).
        #expect(throttle.admit(account: Self.victim, address: "home", now: 0) == 1)
    }

    @Test func runsAreForgottenAfterTheWindow() {
        var throttle = LoginThrottle(policy: LoginThrottle.Policy(windowSeconds: 60, pairFreeFailures: 2))
        for _ in 0..<2 { fail(&throttle, Self.victim, from: "a", at: 0) }
        #expect(throttle.admit(account: Self.victim, address: "a", now: 0) == 1)
        fail(&throttle, Self.victim, from: "a", at: 60_000)
        fail(&throttle, Self.victim, from: "a", at: 60_000)
        #expect(throttle.admit(account: Self.victim, address: "a", now: 60_000) == 1)
    }
}

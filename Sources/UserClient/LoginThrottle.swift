/// Failed sign-ins, throttled so that the throttle cannot be turned against
/// the account's owner (OWASP Authentication Cheat Sheet, "Account
/// lockout": a lock anyone can trigger is a denial of service). Before, 5
/// wrong passwords from anywhere locked the account for 15 minutes from
/// every address, and 20 failures blocked an address (everyone behind one
/// NAT) as long.
///
/// Three runs of failures, each forgotten once `window` has passed since
/// its last failure, and each answered with exponential back-off (1 s after
/// the run's free failures, doubling, up to a cap) counted from a last
/// failure, never with a lock:
/// - **(account, address)**: the one address guessing at one account,
///   up to `maxPairBackoff`;
/// - **account**: every address together, up to `maxBackoff`, applied only
///   to addresses that have failed for this account within the window and
///   counted from that address's own last failure: an owner at an address
///   that has not been failing is not held by it at all, and one who has
///   failed waits at most `maxBackoff` after their own last failure,
///   however many addresses spray wrong passwords for them;
/// - **address**: one address across accounts (credential stuffing), up to
///   `maxBackoff`, except for accounts that signed in successfully from it
///   within `trustPeriod` (people behind one NAT who have signed in there).
///
/// An attempt is counted as a failure when admitted and given back when the
/// password matches, so concurrent guesses see each other: all of them are
/// admitted before any verification ends otherwise.
///
/// Times are milliseconds of monotonic time. Bounded: beyond `maxTracked`
/// entries the forgotten ones go first, then the least recent tenth.
public struct LoginThrottle: Sendable {
    private struct Run: Sendable {
        var failures = 0
        var last: Int64 = 0
    }

    private var runs: [String: Run] = [:]
    /// (account, address) → when it last signed in successfully.
    private var trusted: [String: Int64] = [:]
    public let policy: Policy

    public init(policy: Policy) {
        self.policy = policy
    }

    /// Seconds to wait before this attempt is allowed, or nil: then the
    /// attempt is counted as a failure until `succeeded` gives it back.
    public mutating func admit(account: String, address: String, now: Int64) -> Int? {
        let keys = Keys(account: account, address: address)
        let pair = current(keys.pair, now: now)
        var wait = remaining(pair.failures, since: pair.last, free: policy.pairFreeFailures,
                             cap: policy.maxPairBackoff, now: now)
        if pair.failures > 0 {
            // Counted from this address's own last failure, so other
            // addresses failing cannot stretch the wait of this one.
            let account = current(keys.account, now: now)
            wait = max(wait, remaining(account.failures, since: pair.last, free: policy.accountFreeFailures,
                                       cap: policy.maxBackoff, now: now))
        }
        if !isTrusted(keys.pair, now: now) {
            let address = current(keys.address, now: now)
            wait = max(wait, remaining(address.failures, since: address.last, free: policy.addressFreeFailures,
                                       cap: policy.maxBackoff, now: now))
        }
        if wait > 0 { return Int((wait + 999) / 1000) }
        for key in [keys.pair, keys.account, keys.address] { count(key, now: now) }
        if runs.count + trusted.count > policy.maxTracked { evict(now: now) }
        return nil
    }

    /// The password matched: the attempt is given back to the account's and
    /// the address's runs, the pair's run ends and the pair is trusted.
    public mutating func succeeded(account: String, address: String, now: Int64) {
        let keys = Keys(account: account, address: address)
        runs[keys.pair] = nil
        for key in [keys.account, keys.address] {
            guard var run = runs[key] else { continue }
            run.failures -= 1
            runs[key] = run.failures > 0 ? run : nil
        }
        trusted[keys.pair] = now
    }

    /// Entries held now (runs and trusted pairs).
    public var trackedCount: Int { runs.count + trusted.count }

    private struct Keys {
        let pair: String
        let account: String
        let address: String

        init(account: String, address: String) {
            // NUL cannot occur in a normalized email or an IP address.
            pair = "p:" + account + "\u{0}" + address
            self.account = "a:" + account
            self.address = "i:" + address
        }
    }

    /// `key`'s run, or an empty one when it was forgotten.
    private func current(_ key: String, now: Int64) -> Run {
        guard let run = runs[key], now - run.last < policy.window else { return Run() }
        return run
    }

    /// Milliseconds of back-off left after `failures`, the last at `since`.
    private func remaining(_ failures: Int, since: Int64, free: Int, cap: Int64, now: Int64) -> Int64 {
        guard failures >= free else { return 0 }
        let backoff = min(cap, Int64(1000) << min(failures - free, 32))
        return max(0, since + backoff - now)
    }

    private func isTrusted(_ key: String, now: Int64) -> Bool {
        guard let since = trusted[key] else { return false }
        return now - since < policy.trustPeriod
    }

    private mutating func count(_ key: String, now: Int64) {
        var run = current(key, now: now)
        run.failures += 1
        run.last = now
        runs[key] = run
    }

    private mutating func evict(now: Int64) {
        runs = runs.filter { now - $0.value.last < policy.window }
        trusted = trusted.filter { now - $0.value < policy.trustPeriod }
        let target = policy.maxTracked * 9 / 10
        if runs.count + trusted.count > target {
            // The least recent tenth in one pass, so a flood of new addresses
            // costs one sort per tenth of the table, not one scan per entry.
            let times = (runs.values.map(\.last) + trusted.values).sorted()
            let cutoff = times[times.count - target - 1]
            runs = runs.filter { $0.value.last > cutoff }
            trusted = trusted.filter { $0.value > cutoff }
        }
    }
}

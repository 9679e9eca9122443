/// Failed sign-ins, throttled so that the throttle cannot be turned against
/// the account's owner (OWASP Authentication Cheat Sheet, "Account
/// lockout": a lock anyone can trigger is a denial of service). A fixed
/// lockout (a few wrong passwords from anywhere locking the account from
/// every address, or a run of failures blocking an address and everyone
/// behind its NAT) would let anyone lock the owner out.
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
/// The account's run also holds every *unfamiliar* address, one the
/// account has not signed in from within `trustPeriod`: after
/// `unfamiliarFreeFailures` it waits until the account's last failure plus
/// the back-off (up to `maxUnfamiliarBackoff`), so guessing spread over
/// many addresses, each failing once, is bounded by the account's total.
/// Addresses the owner signed in from are not held by it: they keep the
/// rules above, which no other address can stretch.
///
/// An attempt is counted as a failure when admitted and given back when the
/// password matches, so concurrent guesses see each other: all of them are
/// admitted before any verification ends otherwise.
///
/// This value is the policy over the runs of one attempt's three keys (and
/// its pair's trust); the runs themselves live in the database
/// (`LoginThrottleStore` loads them locked, and saves what changed), so
/// every replica counts into one total. Times are wall-clock milliseconds:
/// replicas share no monotonic clock.
public struct LoginThrottle: Sendable {
    struct Run: Sendable, Equatable {
        var failures = 0
        var last: Int64 = 0
    }

    private(set) var runs: [String: Run] = [:]
    /// (account, address) → when it last signed in successfully.
    private(set) var trusted: [String: Int64] = [:]
    public let policy: Policy

    public init(policy: Policy) {
        self.policy = policy
    }

    /// The runs and trust loaded for one attempt.
    init(policy: Policy, runs: [String: Run], trusted: [String: Int64]) {
        self.policy = policy
        self.runs = runs
        self.trusted = trusted
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
            let account = current(keys.account, now: now)
            wait = max(wait, remaining(account.failures, since: account.last, free: policy.unfamiliarFreeFailures,
                                       cap: policy.maxUnfamiliarBackoff, now: now))
        }
        if wait > 0 { return Int((wait + 999) / 1000) }
        for key in keys.all { count(key, now: now) }
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

    /// No password was checked (the hashing queue was full): the attempt
    /// admitted for it is given back to every run, and nothing is trusted.
    /// Otherwise whoever fills the queue turns an owner's right password
    /// into counted failures.
    public mutating func withdrawn(account: String, address: String) {
        let keys = Keys(account: account, address: address)
        for key in keys.all {
            guard var run = runs[key] else { continue }
            run.failures -= 1
            runs[key] = run.failures > 0 ? run : nil
        }
    }

    struct Keys {
        let pair: String
        let account: String
        let address: String

        init(account: String, address: String) {
            // A line feed cannot occur in a normalized email or an address,
            // and PostgreSQL's text can store it (not NUL: there the keys of
            // every address for one account would become one key).
            pair = "p:" + account + "\n" + address
            self.account = "a:" + account
            self.address = "i:" + address
        }

        /// In one fixed order, so two attempts lock their rows in the same
        /// order and cannot deadlock each other.
        var all: [String] { [account, address, pair] }
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
}

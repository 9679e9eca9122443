/// Failed sign-ins counted per account and per client address in a sliding
/// window. Bounded: beyond `maxTracked` keys the entries whose window has
/// passed go first, then the oldest, so spraying addresses cannot grow
/// memory without bound.
public struct LoginThrottle: Sendable {
    /// Limits on failed sign-ins within `windowSeconds`.
    public struct Policy: Sendable {
        public var windowSeconds: Int
        public var perAccount: Int
        public var perAddress: Int
        public var maxTracked: Int

        public init(windowSeconds: Int = 15 * 60, perAccount: Int = 5, perAddress: Int = 20, maxTracked: Int = 100_000) {
            self.windowSeconds = windowSeconds
            self.perAccount = perAccount
            self.perAddress = perAddress
            self.maxTracked = maxTracked
        }

        var window: Int64 { Int64(windowSeconds) * 1000 }
    }

    private var failures: [String: [Int64]] = [:]
    let policy: Policy

    init(policy: Policy) {
        self.policy = policy
    }

    /// Seconds to wait before `account` or `address` may try again, or nil.
    func retryAfter(account: String, address: String, now: Int64) -> Int? {
        let waits = [wait(key: "a:" + account, limit: policy.perAccount, now: now),
                     wait(key: "i:" + address, limit: policy.perAddress, now: now)].compactMap { $0 }
        return waits.max()
    }

    mutating func recordFailure(account: String, address: String, now: Int64) {
        for key in ["a:" + account, "i:" + address] {
            var times = (failures[key] ?? []).filter { now - $0 < policy.window }
            times.append(now)
            failures[key] = times
        }
        if failures.count > policy.maxTracked { evict(now: now) }
    }

    mutating func recordSuccess(account: String) {
        failures["a:" + account] = nil
    }

    private func wait(key: String, limit: Int, now: Int64) -> Int? {
        let recent = (failures[key] ?? []).filter { now - $0 < policy.window }
        guard recent.count >= limit, let oldest = recent.min() else { return nil }
        return Int(max(1, (oldest + policy.window - now + 999) / 1000))
    }

    private mutating func evict(now: Int64) {
        failures = failures.filter { $0.value.contains { now - $0 < policy.window } }
        while failures.count > policy.maxTracked,
              let oldest = failures.min(by: { ($0.value.last ?? 0) < ($1.value.last ?? 0) }) {
            failures[oldest.key] = nil
        }
    }
}

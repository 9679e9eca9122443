extension LoginThrottle {
    /// The numbers of the throttle; every one is a configuration key
    /// (`login_*`, see config/README.md).
    ///
    /// With the defaults, an owner at an address that has not been failing
    /// waits 0 s whatever an attacker does from other addresses; an address
    /// that has failed for the account waits at most 30 s on the account's
    /// run, and a single address guessing at one account gets 5 tries, then
    /// 1 s, 2 s, 4 s … up to 15 min between tries. Addresses the account
    /// has not signed in from share the account's run: after 10 failures
    /// for it from anywhere, each of them waits 1 s, 2 s, 4 s … up to 5 min
    /// after the account's last failure, so guesses spread over any number
    /// of addresses get about 20 tries in the first 10 minutes and then one
    /// every 5 minutes.
    public struct Policy: Sendable, Equatable {
        /// Seconds after its last failure when a run is forgotten.
        public var windowSeconds: Int
        /// Failures of one (account, address) pair before back-off.
        public var pairFreeFailures: Int
        /// Failures for one account, from any address, before back-off.
        public var accountFreeFailures: Int
        /// Failures from one address, for any account, before back-off.
        public var addressFreeFailures: Int
        /// Longest back-off of the account and address runs, in seconds.
        public var maxBackoffSeconds: Int
        /// Longest back-off of a pair's run, in seconds.
        public var maxPairBackoffSeconds: Int
        /// Seconds a successful sign-in exempts its (account, address) pair
        /// from the address's back-off and the account's unfamiliar one.
        public var trustPeriodSeconds: Int
        /// Failures for one account, from any address, before every address
        /// the account has not signed in from backs off.
        public var unfamiliarFreeFailures: Int
        /// Longest back-off of an unfamiliar address on the account's run, in seconds.
        public var maxUnfamiliarBackoffSeconds: Int

        public init(windowSeconds: Int = 15 * 60, pairFreeFailures: Int = 5, accountFreeFailures: Int = 5,
                    addressFreeFailures: Int = 20, maxBackoffSeconds: Int = 30, maxPairBackoffSeconds: Int = 15 * 60,
                    trustPeriodSeconds: Int = 30 * 86_400, unfamiliarFreeFailures: Int = 10,
                    maxUnfamiliarBackoffSeconds: Int = 5 * 60) {
            self.windowSeconds = windowSeconds
            self.pairFreeFailures = pairFreeFailures
            self.accountFreeFailures = accountFreeFailures
            self.addressFreeFailures = addressFreeFailures
            self.maxBackoffSeconds = maxBackoffSeconds
            self.maxPairBackoffSeconds = maxPairBackoffSeconds
            self.trustPeriodSeconds = trustPeriodSeconds
            self.unfamiliarFreeFailures = unfamiliarFreeFailures
            self.maxUnfamiliarBackoffSeconds = maxUnfamiliarBackoffSeconds
        }

        var window: Int64 { Int64(windowSeconds) * 1000 }
        var maxBackoff: Int64 { Int64(maxBackoffSeconds) * 1000 }
        var maxPairBackoff: Int64 { Int64(maxPairBackoffSeconds) * 1000 }
        var trustPeriod: Int64 { Int64(trustPeriodSeconds) * 1000 }
        var maxUnfamiliarBackoff: Int64 { Int64(maxUnfamiliarBackoffSeconds) * 1000 }
    }
}

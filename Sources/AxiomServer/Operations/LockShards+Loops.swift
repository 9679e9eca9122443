import Sharding

/// State every exchange touches (request counts, access lines) kept once
/// per event loop: a loop takes only its own shard's lock, which nobody
/// else holds but an occasional reader (a scrape, a flush). One lock shared
/// by every loop convoyed once loops outnumbered cores: Swift's `Mutex`
/// waits in a priority-inheritance futex that hands the lock to a sleeping
/// waiter, so a holder preempted mid-section put every other loop to sleep
/// behind it.
extension LockShards {
    /// 64 shards; loop `n` uses shard `n % 64`, so a server with more loops
    /// than that shares shards between a few loops.
    convenience init(perLoop make: () -> sending Value) {
        self.init(count: 64, make)
    }

    /// `body` on the shard of event loop `loop`.
    func withLock<Result>(loop: Int, _ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try withLock(at: loop % count, body)
    }
}

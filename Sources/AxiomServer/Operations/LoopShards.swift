import Synchronization

/// A value kept once per event loop, each copy behind its own lock, for
/// state every exchange touches (request counts, access lines): a loop
/// takes only its own shard's lock, which nobody else holds but an
/// occasional reader (a scrape, a flush). One lock shared by every loop
/// convoyed once loops outnumbered cores: Swift's `Mutex` waits in a
/// priority-inheritance futex that hands the lock to a sleeping waiter, so
/// a holder preempted mid-section put every other loop to sleep behind it.
final class LoopShards<Value: Sendable>: Sendable {
    private final class Shard: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
    }

    private let shards: [Shard]

    /// `count` shards; loop `n` uses shard `n % count`, so a server with
    /// more loops than that shares shards between a few loops.
    init(count: Int = 64, _ initial: () -> Value) {
        shards = (0..<max(1, count)).map { _ in Shard(initial()) }
    }

    /// `body` on the shard of event loop `loop`.
    func withLock<Result: Sendable>(loop: Int, _ body: (inout Value) -> Result) -> Result {
        shards[loop % shards.count].value.withLock { body(&$0) }
    }

    /// `body` on each shard in turn, one lock at a time.
    func map<Result: Sendable>(_ body: (inout Value) -> Result) -> [Result] {
        shards.map { shard in shard.value.withLock { body(&$0) } }
    }
}

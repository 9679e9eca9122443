import Synchronization

/// A value split into shards by key, each behind its own lock: for state
/// that every request touches from every event loop (rate-limit buckets,
/// sessions, verified tokens, working sets, per-loop counters), where one
/// lock for all convoys once threads outnumber cores. A key always lands in
/// the same shard. The one sharded-lock type of the code base: HTTPServer's
/// rate limits and Axiom's runtime and working sets both use it, which is
/// why it is a target of its own below both.
public final class LockShards<Value>: Sendable {
    @usableFromInline
    final class Shard: Sendable {
        @usableFromInline let value: Mutex<Value>
        @inlinable init(_ value: consuming sending Value) { self.value = Mutex(value) }
    }

    @usableFromInline let shards: [Shard]

    /// `count` shards (at least 1), each made by `make`.
    @inlinable
    public init(count: Int, _ make: () -> sending Value) {
        var shards: [Shard] = []
        for _ in 0..<max(1, count) { shards.append(Shard(make())) }
        self.shards = shards
    }

    @inlinable
    public var count: Int { shards.count }

    /// The shard `key` lands in.
    @inlinable
    public func index<Key: Hashable>(of key: Key) -> Int {
        shards.count == 1 ? 0 : Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))
    }

    /// `body` on shard `index`, under its lock.
    @inlinable
    public func withLock<Result>(at index: Int, _ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try shards[index].value.withLock(body)
    }

    /// `body` on `key`'s shard, under its lock.
    @inlinable
    public func withLock<Key: Hashable, Result>(for key: Key, _ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try shards[index(of: key)].value.withLock(body)
    }

    /// `body` on every shard in turn, one lock at a time (a scrape, a sweep:
    /// never a single key's path).
    @inlinable
    public func map<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> [Result] {
        var results: [Result] = []
        for shard in shards { results.append(try shard.value.withLock(body)) }
        return results
    }
}

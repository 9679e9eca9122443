import Axiom
import Domain
import Synchronization

/// `VerifiedTokens` split by token hash, each shard behind its own lock:
/// every signed-in request checks its token here, from every event loop.
/// A forget runs over every shard, so a shard's generation moves with each
/// one and `keep` stays as strict as with a single table.
final class VerifiedTokenShards: Sendable {
    private final class Shard: Sendable {
        let tokens: Mutex<VerifiedTokens>
        init(capacity: Int) { tokens = Mutex(VerifiedTokens(capacity: capacity)) }
    }

    private let shards: [Shard]

    /// `capacity`: answers kept in all (at least one a shard).
    init(capacity: Int, shards count: Int = 16) {
        let count = max(1, min(count, capacity / 64))
        let each = max(1, (capacity + count - 1) / count)
        shards = (0..<count).map { _ in Shard(capacity: each) }
    }

    var usage: WorkingSetUsage {
        let parts = shards.map { shard in shard.tokens.withLock { $0.usage } }
        return WorkingSetUsage(name: "verified_tokens", entries: parts.reduce(0) { $0 + $1.entries },
                               capacity: parts.reduce(0) { $0 + $1.capacity },
                               hits: parts.reduce(0) { $0 + $1.hits }, misses: parts.reduce(0) { $0 + $1.misses })
    }

    /// The generation of `tokenHash`'s shard, read before an answer is computed.
    func generation(of tokenHash: String) -> UInt64 {
        shard(tokenHash).tokens.withLock { $0.generation }
    }

    func lookup(_ tokenHash: String, now: Int64) -> Authentication? {
        shard(tokenHash).tokens.withLock { $0.lookup(tokenHash, now: now) }
    }

    func keep(_ authentication: Authentication, for tokenHash: String, readAt generation: UInt64) {
        shard(tokenHash).tokens.withLock { $0.keep(authentication, for: tokenHash, readAt: generation) }
    }

    func forget(where matches: (Authentication) -> Bool) {
        for shard in shards { shard.tokens.withLock { $0.forget(where: matches) } }
    }

    private func shard(_ tokenHash: String) -> Shard {
        shards.count == 1 ? shards[0] : shards[Int(UInt(bitPattern: tokenHash.hashValue) % UInt(shards.count))]
    }
}

import Axiom
import Domain

/// `VerifiedTokens` split by token hash, each shard behind its own lock:
/// every signed-in request checks its token here, from every event loop.
/// A forget runs over every shard, so a shard's generation moves with each
/// one and `keep` stays as strict as with a single table.
final class VerifiedTokenShards: Sendable {
    private let shards: LockShards<VerifiedTokens>

    /// `capacity`: answers kept in all (at least one a shard).
    init(capacity: Int, shards count: Int = 16) {
        let count = max(1, min(count, capacity / 64))
        let each = max(1, (capacity + count - 1) / count)
        shards = LockShards(count: count) { VerifiedTokens(capacity: each) }
    }

    var usage: WorkingSetUsage {
        WorkingSetUsage(name: "verified_tokens", summing: shards.map { $0.usage })
    }

    /// The generation of `tokenHash`'s shard, read before an answer is computed.
    func generation(of tokenHash: String) -> UInt64 {
        shards.withLock(for: tokenHash) { $0.generation }
    }

    func lookup(_ tokenHash: String, now: Int64) -> Authentication? {
        shards.withLock(for: tokenHash) { $0.lookup(tokenHash, now: now) }
    }

    func keep(_ authentication: Authentication, for tokenHash: String, readAt generation: UInt64) {
        shards.withLock(for: tokenHash) { $0.keep(authentication, for: tokenHash, readAt: generation) }
    }

    func forget(where matches: (Authentication) -> Bool) {
        _ = shards.map { $0.forget(where: matches) }
    }
}

import Axiom
import Domain

/// Tokens the users client verified recently, by token hash, with the
/// answer it gave: read without entering the client's actor, so the check
/// of a request's bearer token costs a hash and a lock, not a hop into an
/// actor that may be busy with a sign-in's argon2id or a write waiting on
/// the disk. One shard of `VerifiedTokenShards`, behind its lock.
///
/// It never answers for a token that was revoked or whose user changed:
/// every revocation and every committed change of a user forgets the
/// entries concerned and moves `generation` on; an answer computed while
/// the generation moved (it may hold what was just forgotten) is not kept.
/// An entry past its session's expiry is not used.
struct VerifiedTokens: Sendable {
    private var entries: WorkingSet<String, Authentication>
    private(set) var generation: UInt64 = 0

    init(capacity: Int) {
        entries = WorkingSet(capacity: capacity)
    }

    var usage: WorkingSetUsage { entries.usage("verified_tokens") }

    /// The answer for `tokenHash` if it is still valid at `now` (ms since 1970).
    mutating func lookup(_ tokenHash: String, now: Int64) -> Authentication? {
        guard let hit = entries.lookup(tokenHash) else { return nil }
        guard hit.expiresAt.millisecondsSince1970 > now else {
            _ = entries.remove(tokenHash)
            return nil
        }
        return hit
    }

    /// Keeps `authentication` unless something was forgotten since
    /// `generation` was read.
    mutating func keep(_ authentication: Authentication, for tokenHash: String, readAt generation: UInt64) {
        guard generation == self.generation else { return }
        _ = entries.store(authentication, for: tokenHash)
    }

    /// Forgets every answer `matches` selects.
    mutating func forget(where matches: (Authentication) -> Bool) {
        generation += 1
        _ = entries.removeAll(where: matches)
    }
}

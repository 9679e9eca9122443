import Capabilities
import Domain

/// Where a resuming `/events` stream's replay ends, whatever features it
/// carries: the users client answers it because the stream is a signed-in
/// user's, not because the outbox is theirs.
extension UserClient {
    /// The outbox head, when a stream that saw `sequence` can be told
    /// exactly what came after it up to there; nil when it cannot (the id
    /// is negative, pruned, too far behind, or from the outbox's future).
    /// Every feature's replay reads its changes in `(sequence, head]`; the
    /// live stream carries those after the head.
    public nonisolated func resumableHead(after sequence: Int64) async throws -> Int64? {
        let window = try await storage.storedRead { try OutboxUserIndex.window($0) }
        return window.canResume(after: sequence) ? window.head : nil
    }
}

import Capabilities

/// Keeping the search index near one segment (`SearchIndexShape` says why
/// and when), so that searches read one segment rather than the ten a bulk
/// import leaves.
extension CatalogClient {
    /// The most leaf pages one merge step writes: the longest a write that
    /// arrives during a step waits for it (plus its commit).
    public static let searchIndexMergeStepPages = 128

    /// What a round of `compactSearchIndex` did.
    public struct SearchIndexCompaction: Sendable, Equatable {
        public let segmentsBefore: Int
        public let segmentsAfter: Int
        /// Merge steps taken, each its own durable write.
        public let steps: Int
        /// The round gave way to a waiting write (or was cancelled) before
        /// the index was one segment: the next round should come soon.
        public let interrupted: Bool
    }

    /// One round of merging the search index into one segment, when its
    /// shape wants it: bounded steps of `stepPages`, each a write of its
    /// own submitted only while no other write is queued, so a request's
    /// write waits for at most one step. The round ends when one segment
    /// is left, when a write is waiting (`interrupted`: a later round goes
    /// on), or when a step found nothing to merge. Nil when there is
    /// nothing to do (one segment, few pages beside the largest, or
    /// PostgreSQL). Searches see the same matches throughout, so no kept
    /// ranking is dropped.
    public nonisolated func compactSearchIndex(
        stepPages: Int = CatalogClient.searchIndexMergeStepPages
    ) async throws -> SearchIndexCompaction? {
        guard let before = try await read({ try CatalogStore.searchIndexShape($0) }), before.wantsMerge else {
            return nil
        }
        var shape = before
        var steps = 0
        var interrupted = false
        while shape.segments > 1 {
            if storage.hasWritesWaiting || Task.isCancelled {
                interrupted = true
                break
            }
            guard let step = try await storage.durableWrite({ try CatalogStore.mergeSearchIndex($0, pages: stepPages) })
            else { break }
            steps += 1
            shape = step.shape
            if !step.merged { break }
        }
        return SearchIndexCompaction(segmentsBefore: before.segments, segmentsAfter: shape.segments, steps: steps,
                                     interrupted: interrupted)
    }
}

/// The segments of SQLite's full-text index (`products_search`), each by
/// its size in leaf pages (`CatalogStore.searchIndexShape`).
///
/// A search reads every segment: each of its words costs a term lookup and
/// a leaf read in each one before its first row, so an index in one segment
/// answers fastest. FTS5 merges segments as writes add them, four of a
/// level at a time, which leaves a long run of inserts (a seeding, a bulk
/// import) in ten or more; merging everything into one rewrites the whole
/// index. So the catalogue merges when the segments beside the largest hold
/// at least `1 / mergeRatio` of its pages: a seeded file at once, a live
/// index once its new text amounts to that share. The index then grows by
/// that share between two merges, so all of them together write about
/// `mergeRatio + 1` times its final size. The small segments between such
/// merges stay, bounded by FTS5's own merging.
struct SearchIndexShape: Sendable, Equatable {
    /// Leaf pages per segment, by segment id.
    let segmentPages: [Int]

    static let mergeRatio = 8

    var segments: Int { segmentPages.count }

    /// Whether merging the index into one segment is worth its rewrite now.
    var wantsMerge: Bool {
        guard segmentPages.count > 1, let largest = segmentPages.max() else { return false }
        return (segmentPages.reduce(0, +) - largest) * Self.mergeRatio >= largest
    }
}

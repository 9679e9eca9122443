/// The ranked matches of one search expression (at most
/// `CatalogStore.maxRanked`), best bm25 rank first, ties by row number:
/// what `SearchCache` keeps so that the pages of a query, and the same
/// query asked again, cost a binary search and a page of primary-key reads
/// instead of ranking again. The cache keeps only the best matches of each
/// (`prefix`, `isWhole` false): a page past them ranks again.
/// Two parallel arrays, 16 bytes a match.
struct SearchRanking: Sendable {
    let ranks: [Double]
    let rowids: [Int64]
    /// Every ranked match is here, not only the best ones.
    let isWhole: Bool

    init(ranks: [Double], rowids: [Int64], isWhole: Bool = true) {
        precondition(ranks.count == rowids.count)
        self.ranks = ranks
        self.rowids = rowids
        self.isWhole = isWhole
    }

    /// The matches in cursor order: best (lowest) rank first, ties by row
    /// number. Ranks are never NaN (both engines' scores are finite).
    init(sorting matches: [(rank: Double, rowid: Int64)]) {
        let sorted = matches.sorted { $0.rank < $1.rank || ($0.rank == $1.rank && $0.rowid < $1.rowid) }
        self.init(ranks: sorted.map(\.rank), rowids: sorted.map(\.rowid))
    }

    var count: Int { rowids.count }

    /// The best `count` matches (itself when it has no more).
    func prefix(_ count: Int) -> SearchRanking {
        guard count < self.count else { return self }
        return SearchRanking(ranks: Array(ranks.prefix(count)), rowids: Array(rowids.prefix(count)), isWhole: false)
    }

    /// The index of the first match after `cursor` (0 without one): a
    /// binary search, since the matches are in cursor order.
    func start(after cursor: SearchCursor?) -> Int {
        guard let cursor else { return 0 }
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if cursor.precedes(rank: ranks[middle], rowid: rowids[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

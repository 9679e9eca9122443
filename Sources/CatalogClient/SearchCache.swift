/// The rankings of recent searches, keyed by their MATCH expression (the
/// normalized query: words quoted, the last a prefix), so a query asked
/// again, or its next page, is not ranked again. Real search traffic
/// repeats its popular queries; ranking one is O(its matches).
///
/// - Never stale: any commit that changes indexed text (a new product, a
///   rename, a new description) calls `invalidate()`, which drops every
///   ranking and bumps `generation`; a ranking computed from a read that
///   began before the bump is handed to its callers but not kept. Stock,
///   price and `active` do not touch the ranking: a page reads its rows
///   fresh and filters inactive products then.
/// - One ranking at a time per expression: concurrent callers of a query
///   being ranked wait for that one task (16 searchers asking for the same
///   new word rank it once).
/// - Keeps the best `matchesPerQuery` matches of each ranking: the first
///   pages, which are what is asked again (a page past them ranks again),
///   so that the bound holds about eight times as many queries as whole
///   rankings of `CatalogStore.maxRanked` would: a query repeated among
///   thousands of others is still kept when it comes back.
/// - Bounded by the matches it holds (16 bytes each), oldest ranking out
///   first; a ranking larger than the bound is used once and not kept.
/// - Also keeps the document count of each phrase ranked (SQLite's ranking
///   needs one per word, and counting a common word walks its doclist):
///   a new query made of known words costs only its own ranking. Counts
///   follow the same generation as the rankings, and at most
///   `maxDocumentCounts` are kept; past that they are dropped together
///   (recounting is what a miss costs anyway; a word list this long is
///   rare and a precise eviction order not worth its bookkeeping).
struct SearchCache {
    enum Slot {
        case ready(SearchRanking)
        case running(Task<SearchRanking, any Error>)
    }

    private(set) var generation: UInt64 = 0
    private(set) var heldMatches = 0
    private var entries: [String: Slot] = [:]
    /// Kept rankings, oldest first (the eviction order).
    private var order: [String] = []
    private var orderStart = 0
    let maxMatches: Int
    private var documentCounts: [String: Int] = [:]
    let maxDocumentCounts: Int
    /// At least a page of the largest size (100) and the match that says
    /// whether another follows, with room for inactive products skipped.
    let matchesPerQuery: Int

    init(maxMatches: Int, maxDocumentCounts: Int = 100_000, matchesPerQuery: Int = 128) {
        self.maxMatches = max(0, maxMatches)
        self.maxDocumentCounts = max(0, maxDocumentCounts)
        self.matchesPerQuery = max(1, matchesPerQuery)
    }

    /// The kept document counts of `phrases` (those known).
    func documentCounts(of phrases: [String]) -> [String: Int] {
        var known: [String: Int] = [:]
        for phrase in phrases { known[phrase] = documentCounts[phrase] }
        return known
    }

    /// Number of document counts kept.
    var documentCountsKept: Int { documentCounts.count }

    var count: Int { entries.count }

    func slot(for key: String) -> Slot? { entries[key] }

    mutating func begin(_ key: String, _ task: Task<SearchRanking, any Error>) {
        entries[key] = .running(task)
    }

    /// Keeps the best matches of `whole` for `key` if no invalidation
    /// happened since its read began at `started`, evicting the oldest
    /// rankings to stay in bounds.
    mutating func finish(_ key: String, _ whole: SearchRanking, counts: [String: Int] = [:],
                         startedAt started: UInt64) {
        guard started == generation, case .running = entries[key] else { return }
        keep(counts)
        let ranking = whole.prefix(matchesPerQuery)
        guard ranking.count <= maxMatches else {
            entries[key] = nil
            return
        }
        while heldMatches + ranking.count > maxMatches, orderStart < order.count {
            let oldest = order[orderStart]
            orderStart += 1
            if case .ready(let evicted) = entries[oldest] {
                heldMatches -= evicted.count
                entries[oldest] = nil
            }
        }
        if orderStart > 1024, orderStart * 2 > order.count {
            order.removeFirst(orderStart)
            orderStart = 0
        }
        entries[key] = .ready(ranking)
        order.append(key)
        heldMatches += ranking.count
    }

    private mutating func keep(_ counts: [String: Int]) {
        if documentCounts.count + counts.count > maxDocumentCounts { documentCounts.removeAll() }
        guard counts.count <= maxDocumentCounts else { return }
        documentCounts.merge(counts) { _, new in new }
    }

    /// A ranking failed: the next caller tries again.
    mutating func fail(_ key: String, startedAt started: UInt64) {
        guard started == generation, case .running = entries[key] else { return }
        entries[key] = nil
    }

    /// Indexed text changed: every ranking may be wrong now.
    mutating func invalidate() {
        generation &+= 1
        entries.removeAll()
        order.removeAll()
        orderStart = 0
        heldMatches = 0
        documentCounts.removeAll()
    }
}

@testable import CatalogClient
import Testing

/// `SearchCache` alone: what it keeps, for how long, and within what bound.
@Suite struct SearchCacheTests {
    private static func ranking(_ count: Int) -> SearchRanking {
        SearchRanking(ranks: (0 ..< count).map { -Double(count - $0) }, rowids: (0 ..< count).map { Int64($0 + 1) })
    }

    private static func keep(_ cache: inout SearchCache, _ key: String, _ count: Int) {
        let started = cache.generation
        cache.begin(key, Task { ranking(count) })
        cache.finish(key, ranking(count), startedAt: started)
    }

    private static func isReady(_ cache: SearchCache, _ key: String) -> Bool {
        if case .ready = cache.slot(for: key) { return true }
        return false
    }

    @Test("only a ranking's best matchesPerQuery are kept, marked as a part; a shorter one is kept whole")
    func keepsTheBest() {
        var cache = SearchCache(maxMatches: 100, matchesPerQuery: 3)
        Self.keep(&cache, "a", 5)
        Self.keep(&cache, "b", 2)
        guard case .ready(let best) = cache.slot(for: "a"), case .ready(let whole) = cache.slot(for: "b") else {
            Issue.record("not kept")
            return
        }
        #expect(best.count == 3 && !best.isWhole && best.rowids == [1, 2, 3] && best.ranks == [-5, -4, -3])
        #expect(whole.count == 2 && whole.isWhole)
        #expect(cache.heldMatches == 5)
    }

    @Test("the oldest rankings leave first to stay within the bound of matches held")
    func bound() {
        var cache = SearchCache(maxMatches: 10)
        Self.keep(&cache, "a", 4)
        Self.keep(&cache, "b", 4)
        #expect(cache.heldMatches == 8 && Self.isReady(cache, "a") && Self.isReady(cache, "b"))
        Self.keep(&cache, "c", 4)
        #expect(cache.heldMatches == 8 && !Self.isReady(cache, "a") && Self.isReady(cache, "b") && Self.isReady(cache, "c"))
        Self.keep(&cache, "big", 11)
        #expect(cache.slot(for: "big") == nil && cache.heldMatches == 8)
    }

    @Test("a ranking whose read began before an invalidation is not kept; a failed one is forgotten")
    func generation() {
        var cache = SearchCache(maxMatches: 100)
        let started = cache.generation
        cache.begin("a", Task { Self.ranking(1) })
        cache.invalidate()
        #expect(cache.slot(for: "a") == nil)
        cache.begin("a", Task { Self.ranking(1) })
        cache.finish("a", Self.ranking(1), startedAt: started)
        #expect(!Self.isReady(cache, "a"))
        cache.fail("a", startedAt: cache.generation)
        #expect(cache.slot(for: "a") == nil)
        Self.keep(&cache, "b", 3)
        cache.invalidate()
        #expect(cache.count == 0 && cache.heldMatches == 0)
    }

    @Test("document counts are kept with a finished ranking, within their bound, and dropped with the rankings")
    func documentCounts() {
        var cache = SearchCache(maxMatches: 100, maxDocumentCounts: 3)
        var started = cache.generation
        cache.begin("a", Task { Self.ranking(1) })
        cache.finish("a", Self.ranking(1), counts: ["\"lamp\"": 40, "\"red\"*": 7], startedAt: started)
        #expect(cache.documentCounts(of: ["\"lamp\"", "\"red\"*", "\"blue\""]) == ["\"lamp\"": 40, "\"red\"*": 7])
        // Past the bound the kept counts go together; the new ones stay.
        started = cache.generation
        cache.begin("b", Task { Self.ranking(1) })
        cache.finish("b", Self.ranking(1), counts: ["\"blue\"": 3, "\"desk\"": 9], startedAt: started)
        #expect(cache.documentCountsKept == 2 && cache.documentCounts(of: ["\"lamp\"", "\"blue\""]) == ["\"blue\"": 3])
        // Counted before an invalidation: not kept, like the ranking.
        started = cache.generation
        cache.begin("c", Task { Self.ranking(1) })
        cache.invalidate()
        #expect(cache.documentCountsKept == 0)
        cache.begin("c", Task { Self.ranking(1) })
        cache.finish("c", Self.ranking(1), counts: ["\"oak\"": 1], startedAt: started)
        #expect(cache.documentCountsKept == 0)
    }

    @Test("a cursor resumes right after its match, ties by row number")
    func start() {
        let ranking = SearchRanking(sorting: [(-2, 7), (-1, 1), (-3, 9), (-2, 2), (-2, 5)])
        #expect(ranking.ranks == [-3, -2, -2, -2, -1] && ranking.rowids == [9, 2, 5, 7, 1])
        #expect(ranking.start(after: nil) == 0)
        #expect(ranking.start(after: SearchCursor(rank: -3, rowid: 9)) == 1)
        #expect(ranking.start(after: SearchCursor(rank: -2, rowid: 5)) == 3)
        #expect(ranking.start(after: SearchCursor(rank: -2, rowid: 7)) == 4)
        #expect(ranking.start(after: SearchCursor(rank: -2, rowid: 6)) == 3)
        #expect(ranking.start(after: SearchCursor(rank: -1, rowid: 1)) == 5)
        let cursor = SearchCursor(rank: -2.125, rowid: 42)
        #expect(SearchCursor(encoded: cursor.encoded) == cursor)
    }
}

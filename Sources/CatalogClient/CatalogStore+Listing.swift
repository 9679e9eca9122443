import Capabilities
import Domain

/// The catalogue's reads beyond one product: the list in name order and the
/// ranked search, both keyset-paged on an index (a page costs its own rows
/// plus one probe, however deep the cursor), and the checks activation
/// makes. Each fetches one row more than the page to know whether another
/// page follows.
extension CatalogStore {
    /// The products among `ids` that exist, one prepared primary-key probe each.
    static func fetchAll(_ handle: any StorageHandle, _ ids: [ProductID]) throws -> [VersionedProduct] {
        try ids.compactMap { try fetch(handle, $0) }
    }

    /// One page in (folded name, id) order after `after`, from the index
    /// `products_active_by_name` (public), `products_inactive_by_name`
    /// (an admin's deactivated products) or `products_by_name` (all).
    static func list(_ handle: any StorageHandle, after: ProductCursor?, limit: Int,
                     shown: ProductQuery.Shown) throws -> (rows: [VersionedProduct], more: Bool) {
        let filter = switch shown {
        case .active: "active = 1 AND "
        case .inactive: "active = 0 AND "
        case .all: ""
        }
        let rows = try handle.query("""
            SELECT \(columns) FROM products
            WHERE \(filter)(name_folded, id) > (?, ?)
            ORDER BY name_folded, id LIMIT ?
            """, after?.foldedName ?? "", after?.id ?? "", limit + 1).map(decode)
        return (Array(rows.prefix(limit)), rows.count > limit)
    }

    /// The most matches a search ranks. Ranking costs per matching row, and
    /// FTS5 cannot stop early when ordering by a score, so without a cap a
    /// common word or a short prefix (a large share of a big catalogue)
    /// would rank every match (`docs/catalog-client.md` has the costs). A
    /// query matching more is ranked among its newest 1,000 matches (the
    /// oldest are the least likely to be wanted in a shop; newest first
    /// costs FTS5 more, see `ranking`), and another word narrows it. Most
    /// queries match fewer and are ranked whole.
    static let maxRanked = 1_000

    /// `expression`'s matches (the newest `maxRanked` if there are more),
    /// those named exactly as the query first (`exactNameRank`), then
    /// best rank first, ties by row number (sorted here rather than by an
    /// outer `ORDER BY`: SQLite's sorter is the dearer way,
    /// docs/catalog-client.md), and the document counts the
    /// ranking used (to keep for the next query with those words).
    /// Inactive products included: a page filters them on fresh rows, so a
    /// deactivation does not change a ranking.
    ///
    /// SQLite: `bm25_with_counts` (the storage's BM25 from counts kept
    /// between queries; negative, lower is better) with a name match
    /// weighing 10, a SKU match 5, a description match 1. A phrase's count
    /// comes from `knownCounts` or is counted now (`documentCount`); only
    /// the phrases that match something are passed, as the function needs.
    /// A query of one phrase counts nothing: every match has that phrase,
    /// so its rarity would scale every score alike and BM25's order is the
    /// same without it (it is left out, see `CountedBM25`), and counting a
    /// common word walks its whole doclist, in every segment of the index.
    /// Its walk is newest first unless its count is known to be at most
    /// `maxRanked`; a walk that ends before `maxRanked` rows has seen every
    /// match, so it returns that count for later queries with the word.
    ///
    /// PostgreSQL: `ts_rank` with the same proportions through the
    /// tsvector's weights (name A 1.0, SKU B 0.5, description C 0.1),
    /// negated so that lower is better there too and one cursor order
    /// serves both. `ts_rank` rather than `ts_rank_cd`: it scores how often
    /// and where (which weight) the words occur, as BM25 does; cover density
    /// adds the words' proximity, which says little in a product's few
    /// words and scores a prefix-only match 0. Ranked in the outer query, so
    /// only the newest `maxRanked` matches (found on the GIN index) are
    /// scored. The rank is a `real`, widened to `float8` exactly, so the
    /// cursor's bit pattern round-trips. It needs no counts.
    static func ranking(_ handle: any StorageHandle, _ expression: SearchExpression,
                        knownCounts: [String: Int]) throws -> (ranking: SearchRanking, counts: [String: Int]) {
        var counts: [String: Int] = [:]
        guard !expression.groups.isEmpty else { return (SearchRanking(ranks: [], rowids: []), counts) }
        let rows: [StorageRow]
        switch handle.dialect {
        case .sqlite:
            let single = expression.phrases.count == 1 ? expression.phrases.first : nil
            for phrase in expression.phrases where counts[phrase] == nil {
                counts[phrase] = try knownCounts[phrase] ?? (single == nil ? documentCount(handle, phrase) : nil)
            }
            // Every phrase kept a token (SearchExpression drops the words
            // that keep none), so each has its count, 0 for a form nothing
            // has (it adds nothing to any row's score).
            let matching = single == nil ? expression.phrases.map { counts[$0] ?? 0 } : [CountedBM25.rarityLeftOut]
            let countParameters = matching.indices.map { ", ?\($0 + 3)" }.joined()
            // Every match is ranked when its rarest word has at most
            // maxRanked products (the words are ANDed, a word's forms ORed,
            // so a word has at most the sum of its forms' counts): then
            // FTS5 may walk oldest first, its doclists' own order; newest
            // first it must reach the end of each term's doclist in every
            // segment before the first row. Either walk ranks the same rows
            // then. The counts are exact for the generation the read began in.
            let rarest = single.map { counts[$0] ?? Int.max }
                ?? expression.groups.map { $0.reduce(0) { $0 + (counts[$1] ?? 0) } }.min() ?? 0
            let walk = rarest <= maxRanked ? "ASC" : "DESC"
            rows = try handle.query("""
                SELECT rowid, bm25_with_counts(products_search, 10.0, 1.0, 5.0\(countParameters))
                FROM products_search WHERE products_search MATCH ?1 ORDER BY rowid \(walk) LIMIT ?2
                """, arguments: [expression.match.storageValue, maxRanked.storageValue] + matching.map(\.storageValue))
            if let single, rows.count < maxRanked { counts[single] = rows.count }
        case .postgres:
            rows = try handle.query("""
                SELECT match_rowid,
                    -ts_rank('{0, 0.1, 0.5, 1.0}', search, to_tsquery('simple', catalog_fold(?1)))::float8 AS score
                FROM (
                    SELECT rowid AS match_rowid, search FROM products
                    WHERE search @@ to_tsquery('simple', catalog_fold(?1)) ORDER BY rowid DESC LIMIT ?2
                ) AS newest
                """, expression.tsquery, maxRanked)
        }
        let exact = try exactNameMatches(handle, expression)
        let matches = try rows.compactMap { row -> (rank: Double, rowid: Int64)? in
            let rowid = try row.get(0, as: Int64.self)
            return exact.contains(rowid) ? nil : (rank: try row.get(1, as: Double.self), rowid: rowid)
        }
        return (SearchRanking(sorting: matches + exact.map { (rank: exactNameRank, rowid: $0) }), counts)
    }

    /// The rank of a product whose whole name is the query (case-folded):
    /// before any score, so "Mug" comes first for `mug` however BM25 or
    /// ts_rank weigh "Mug 2" beside it. Finite, as the cursor's rank is.
    static let exactNameRank = -Double.greatestFiniteMagnitude

    /// The most products one exact name brings to the front.
    static let maxExactNames = 100

    /// The products named exactly `expression`'s text (case-folded), by
    /// row number: a probe of `products_by_name` (`name_folded` leads it),
    /// so no scan, whatever the catalogue's size. Such a product matches
    /// the query by construction (its name holds every word), active or
    /// not, like every match here: the page filters on fresh rows.
    static func exactNameMatches(_ handle: any StorageHandle, _ expression: SearchExpression) throws -> Set<Int64> {
        Set(try handle.query("SELECT rowid FROM products WHERE name_folded = ? LIMIT ?", expression.exactName,
                             maxExactNames).map { try $0.get(0, as: Int64.self) })
    }

    /// How many products `phrase` (one phrase of an FTS5 MATCH expression)
    /// matches on its own: the document count of the ranking's idf. It
    /// walks the phrase's whole doclist, which is why callers keep it.
    static func documentCount(_ handle: any StorageHandle, _ phrase: String) throws -> Int {
        try handle.queryOne("SELECT count(*) FROM products_search WHERE products_search MATCH ?", phrase)?.get(0) ?? 0
    }

    /// One page of `ranking` after `after`: each candidate's row read by its
    /// row number (a primary-key probe), those `shown` does not keep
    /// skipped, until `limit` + 1 are found. Nil when `ranking`
    /// holds only the best matches and the page runs past them: the caller
    /// ranks the whole again.
    static func page(_ handle: any StorageHandle, _ ranking: SearchRanking, after: SearchCursor?, limit: Int,
                     shown: ProductQuery.Shown) throws -> (rows: [(VersionedProduct, SearchCursor)], more: Bool)? {
        var rows: [(VersionedProduct, SearchCursor)] = []
        var index = ranking.start(after: after)
        while rows.count <= limit, index < ranking.count {
            let rowid = ranking.rowids[index]
            if let row = try handle.queryOne(pageRowSQL, rowid).map(decode), shown.keeps(active: row.product.active) {
                rows.append((row, SearchCursor(rank: ranking.ranks[index], rowid: rowid)))
            }
            index += 1
        }
        if rows.count <= limit, !ranking.isWhole { return nil }
        return (Array(rows.prefix(limit)), rows.count > limit)
    }

    /// Written once: a page would otherwise build the text anew for each row.
    private static let pageRowSQL = "SELECT \(columns) FROM products WHERE rowid = ?"

    /// Whether some product is priced in another currency than `code`: two
    /// probes of `products_by_currency`, not a scan.
    static func hasOtherCurrency(_ handle: any StorageHandle, than code: String) throws -> Bool {
        try handle.queryOne("""
            SELECT 1 FROM products WHERE price_currency < ? OR price_currency > ? LIMIT 1
            """, code, code) != nil
    }

    /// Writes `name_folded` for up to `batch` rows that lack it (rows from
    /// before migration 202); returns how many it wrote.
    static func foldNames(_ handle: any StorageHandle, batch: Int) throws -> Int {
        let rows = try handle.query("SELECT id, name FROM products WHERE name_folded IS NULL LIMIT ?", batch)
        for row in rows {
            let id: String = try row.get(0)
            let name: String = try row.get(1)
            try handle.execute("UPDATE products SET name_folded = ? WHERE id = ?", ProductCursor.fold(name), id)
        }
        return rows.count
    }
}

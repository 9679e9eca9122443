import Capabilities
import Domain

/// The catalogue's reads beyond one product: the list in name order and the
/// ranked search, both keyset-paged on an index (a page costs its own rows
/// plus one probe, however deep the cursor), and the checks activation
/// makes. Each fetches one row more than the page to know whether another
/// page follows.
extension CatalogStore {
    /// The products among `ids` that exist, one prepared primary-key probe each.
    static func fetchAll(_ handle: SQLiteHandle, _ ids: [ProductID]) throws -> [VersionedProduct] {
        try ids.compactMap { try fetch(handle, $0) }
    }

    /// One page in (folded name, id) order after `after`, from the index
    /// `products_active_by_name` (public) or `products_by_name` (admins).
    static func list(_ handle: SQLiteHandle, after: ProductCursor?, limit: Int,
                     includeInactive: Bool) throws -> (rows: [VersionedProduct], more: Bool) {
        let filter = includeInactive ? "" : "active = 1 AND "
        let rows = try handle.query("""
            SELECT \(columns) FROM products
            WHERE \(filter)(name_folded, id) > (?, ?)
            ORDER BY name_folded, id LIMIT ?
            """, after?.foldedName ?? "", after?.id ?? "", limit + 1).map(decode)
        return (Array(rows.prefix(limit)), rows.count > limit)
    }

    /// The most matches a search ranks. bm25 is computed per matching row
    /// and FTS5 cannot stop early when ordering by it: at 100,000 products
    /// a one-word query matched about 10,000 rows and ranking them all took
    /// 12 ms (20 ms with the rows joined), ten times that at 1,000,000.
    /// Capped, the cost stops growing with the catalogue: over 300 varied
    /// queries on 1,000,000 seeded products (python3, one connection) the
    /// mean was 14.6 ms ranking the first 2,000 matches, 6.7 ms the first
    /// 500, 6.6 ms the first 200 (what is left is FTS5 merging the doclists
    /// of a prefix or of two words). Matches are taken in index order (the
    /// oldest products first); a query matching more is ranked within
    /// those, and another word narrows it.
    static let maxRanked = 500

    /// One page of `expression`'s matches, best bm25 rank first (a name
    /// match weighs 10, a SKU match 5, a description match 1), ties by id,
    /// after `after`, among the first `maxRanked` matches.
    static func search(_ handle: SQLiteHandle, _ expression: SearchExpression, after: SearchCursor?, limit: Int,
                       includeInactive: Bool) throws -> (rows: [(VersionedProduct, Double)], more: Bool) {
        let start = after?.rank ?? -Double.greatestFiniteMagnitude
        let rows = try handle.query("""
            SELECT p.id, p.sku, p.name, p.description, p.price_amount, p.price_currency, p.stock, p.active,
                p.version, matches.score
            FROM (
                SELECT rowid AS match_rowid, bm25(products_search, 10.0, 1.0, 5.0) AS score
                FROM products_search WHERE products_search MATCH ? LIMIT ?
            ) AS matches JOIN products AS p ON p.rowid = matches.match_rowid
            WHERE p.active >= ? AND (matches.score > ? OR (matches.score = ? AND p.id > ?))
            ORDER BY matches.score, p.id LIMIT ?
            """, expression.match, maxRanked, includeInactive ? 0 : 1, start, start,
            after?.productID.description ?? "", limit + 1
        ).map { row in (try decode(row), try row.get(9, as: Double.self)) }
        return (Array(rows.prefix(limit)), rows.count > limit)
    }

    /// Whether some product is priced in another currency than `code`: two
    /// probes of `products_by_currency`, not a scan.
    static func hasOtherCurrency(_ handle: SQLiteHandle, than code: String) throws -> Bool {
        try handle.queryOne("""
            SELECT 1 FROM products WHERE price_currency < ? OR price_currency > ? LIMIT 1
            """, code, code) != nil
    }

    /// Writes `name_folded` for up to `batch` rows that lack it (rows from
    /// before migration 202); returns how many it wrote.
    static func foldNames(_ handle: SQLiteHandle, batch: Int) throws -> Int {
        let rows = try handle.query("SELECT id, name FROM products WHERE name_folded IS NULL LIMIT ?", batch)
        for row in rows {
            let id: String = try row.get(0)
            let name: String = try row.get(1)
            try handle.execute("UPDATE products SET name_folded = ? WHERE id = ?", ProductCursor.fold(name), id)
        }
        return rows.count
    }
}

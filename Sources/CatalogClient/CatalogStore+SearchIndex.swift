import Capabilities

/// The upkeep of SQLite's full-text index: how it is split into segments
/// and the bounded step that merges them (`CatalogClient.compactSearchIndex`).
/// PostgreSQL's GIN index has no segments to merge (its pending list is
/// flushed by autovacuum), so there is nothing to do there.
extension CatalogStore {
    /// The index's segments, or nil on PostgreSQL. Read from FTS5's
    /// `%_idx` table, one row per leaf page that starts a term, keyed by
    /// (segment id, term), its `pgno` the page number shifted left by one
    /// (the low bit flags a doclist index): a probe of the first and the
    /// last row of each segment, however large the index.
    static func searchIndexShape(_ handle: any StorageHandle) throws -> SearchIndexShape? {
        guard handle.dialect == .sqlite else { return nil }
        let rows = try handle.query("""
            WITH RECURSIVE segments(segid) AS (
                SELECT min(segid) FROM products_search_idx
                UNION ALL
                SELECT (SELECT min(segid) FROM products_search_idx WHERE segid > segments.segid)
                FROM segments WHERE segid IS NOT NULL
            )
            SELECT (SELECT max(pgno) FROM products_search_idx WHERE products_search_idx.segid = segments.segid) / 2
            FROM segments WHERE segid IS NOT NULL
            """)
        return SearchIndexShape(segmentPages: try rows.map { try $0.get(0) })
    }

    /// Merges about `pages` leaf pages of the whole index towards one
    /// segment (FTS5's incremental `'merge'` with a negative page count:
    /// every segment, whatever its level, goes into the merge it starts or
    /// continues). Returns whether it merged anything (FTS5's documented
    /// sign: the connection's total changes grew by 2 or more; the shape
    /// alone cannot say, a step may end inside a page run that starts no
    /// term) and the index's shape after. Nil on PostgreSQL.
    static func mergeSearchIndex(_ handle: any StorageHandle,
                                 pages: Int) throws -> (merged: Bool, shape: SearchIndexShape)? {
        guard handle.dialect == .sqlite else { return nil }
        let before: Int = try handle.queryOne("SELECT total_changes()")?.get(0) ?? 0
        try handle.execute("INSERT INTO products_search(products_search, rank) VALUES('merge', ?)", -max(1, pages))
        let after: Int = try handle.queryOne("SELECT total_changes()")?.get(0) ?? 0
        guard let shape = try searchIndexShape(handle) else { return nil }
        return (after - before >= 2, shape)
    }
}

import Axiom
import Capabilities
import Domain

/// The catalogue's reads: `nonisolated` (no hop onto the actor), from the
/// working set on a hit, from SQLite on a miss; lists and searches always
/// from SQLite's indexes. See `CatalogClient` for why.
extension CatalogClient {
    /// The working set: the products held in memory now (a copy).
    public nonisolated var state: CatalogState {
        let products = cache.values
        return (try? CatalogState(currency: currency, products: products)) ?? CatalogState(currency: currency)
    }

    /// How many products the working set holds (at most `cacheEntries`).
    public nonisolated var cachedCount: Int { cache.count }

    /// The working set's fill and lookups (`WorkingSetReporting`).
    public nonisolated var workingSets: [WorkingSetUsage] { [cache.usage] }

    /// A product, active or not, or nil: from memory on a hit (a lock and a
    /// lookup, no suspension), otherwise one primary-key read.
    public nonisolated func lookup(_ id: ProductID) async throws -> Product? {
        try await cache.value(id, readingMiss: readRow)
    }

    /// What `make` makes of a product (its encoded page), made once per
    /// version of a product the working set holds and kept with it; nil
    /// for no such product, or one `include` turns away (the caller's
    /// rule, asked of the held product in place). Inlinable, down to the
    /// working set, so that it is specialized for the caller's
    /// representation: generic, each miss looked up the generic metadata
    /// of the set's types.
    @inlinable
    public nonisolated func lookup<Representation: Sendable>(
        _ id: ProductID, representedAs make: (Product) throws -> Representation,
        where include: (Product) -> Bool
    ) async throws -> Representation? {
        try await cache.represented(id, readingMiss: readRow, as: make, where: include)
    }

    /// The products among `ids` that exist (active or not), by id: hits from
    /// the working set, the misses in one read transaction. What pricing a
    /// cart needs.
    public nonisolated func lookup(_ ids: some Sequence<ProductID>) async throws -> [ProductID: Product] {
        var found: [ProductID: Product] = [:]
        var missing: [ProductID] = []
        for id in ids {
            if let product = cache.lookup(id) { found[id] = product } else { missing.append(id) }
        }
        if !missing.isEmpty {
            for product in try await load(missing) { found[product.id] = product }
        }
        return found
    }

    /// A product, active or not; `product_not_found`.
    public nonisolated func product(_ id: ProductID) async throws -> Product {
        guard let product = try await lookup(id) else {
            throw EntityError.notFound(entity: "product", id: id.description)
        }
        return product
    }

    /// One page of the list. Without `text`: ordered by case-folded name
    /// then id. With `text`: the products matching every word (the last
    /// also as a prefix) in name, description or SKU, best match first
    /// (bm25: a name match above a SKU match above a description match),
    /// then id. `validation_failed` for a bad `limit` (1…100), `q` (too
    /// long, too many words) or `cursor` (not one this service issued for
    /// this kind of list).
    public nonisolated func products(_ query: ProductQuery) async throws -> ProductPage {
        var errors = query.validate() ?? ValidationError()
        let checkCursor = errors.codes(for: "cursor").isEmpty
        if query.text != nil {
            var after: SearchCursor?
            if let cursor = query.cursor, checkCursor {
                after = SearchCursor(encoded: cursor)
                if after == nil { errors.add("cursor", .invalidFormat, "cursor is not one this service issued") }
            }
            try errors.throwIfAny()
            let expression = SearchExpression(terms: query.terms)
            let limit = query.limit, shown = query.shown
            let kept = try await ranking(expression)
            var found = try await read { [after] in
                try CatalogStore.page($0, kept, after: after, limit: limit, shown: shown)
            }
            if found == nil {
                // Past the best matches the cache keeps: rank the whole
                // again (not kept; a deep page is rarely asked twice).
                let known = searches.withLock { $0.documentCounts(of: expression.phrases) }
                found = try await read { [after] in
                    let whole = try CatalogStore.ranking($0, expression, knownCounts: known).ranking
                    return try CatalogStore.page($0, whole, after: after, limit: limit, shown: shown)
                }
            }
            guard let page = found else {
                throw CatalogDataError(description: "a whole ranking of \(expression.match) returned no page")
            }
            return ProductPage(items: try page.rows.map { try checked($0.0).product },
                               nextCursor: page.more ? page.rows.last?.1.encoded : nil)
        }
        var after: ProductCursor?
        if let cursor = query.cursor, checkCursor {
            after = ProductCursor(encoded: cursor)
            if after == nil { errors.add("cursor", .invalidFormat, "cursor is not one this service issued") }
        }
        try errors.throwIfAny()
        let page = try await read { [after] in
            try CatalogStore.list($0, after: after, limit: query.limit, shown: query.shown)
        }
        let last = page.rows.last.map { ProductCursor(foldedName: ProductCursor.fold($0.product.name),
                                                      productID: $0.product.id) }
        return ProductPage(items: try page.rows.map { try checked($0).product },
                           nextCursor: page.more ? last?.encoded : nil)
    }

    // MARK: Misses

    /// `expression`'s ranking from `SearchCache`, or ranked now by one task
    /// that concurrent callers of the same expression share.
    nonisolated func ranking(_ expression: SearchExpression) async throws -> SearchRanking {
        let key = expression.cacheKey
        let slot: SearchCache.Slot = searches.withLock { cache in
            if let slot = cache.slot(for: key) { return slot }
            let started = cache.generation
            let known = cache.documentCounts(of: expression.phrases)
            let task = Task { [self] in
                do {
                    let (ranking, counts) = try await read {
                        try CatalogStore.ranking($0, expression, knownCounts: known)
                    }
                    searches.withLock { $0.finish(key, ranking, counts: counts, startedAt: started) }
                    return ranking
                } catch {
                    searches.withLock { $0.fail(key, startedAt: started) }
                    throw error
                }
            }
            cache.begin(key, task)
            return .running(task)
        }
        switch slot {
        case .ready(let ranking): return ranking
        case .running(let task): return try await task.value
        }
    }

    /// Reads `ids` from storage and keeps them in the working set (unless a
    /// change it no longer holds came after the read began).
    nonisolated func load(_ ids: [ProductID]) async throws -> [Product] {
        let started = cache.start(of: ids)
        let rows = try await read { try CatalogStore.fetchAll($0, ids) }.map(checked)
        return cache.fill(rows, startedAt: started).map(\.product)
    }

    /// One product's row, for a miss the working set reads once.
    @usableFromInline
    nonisolated func readRow(_ id: ProductID) async throws -> Versioned<ProductID, Product>? {
        try await read { try CatalogStore.fetchAll($0, [id]) }.first.map(checked)
    }

    /// A stored row priced in the deployment's currency, or a data error
    /// (activation refuses such a file; this catches a row written since).
    nonisolated func checked(_ row: VersionedProduct) throws -> VersionedProduct {
        guard row.product.price.currency == currency else {
            throw CatalogDataError(description: "product \(row.product.id) is priced in \(row.product.price.currency.code)")
        }
        return row
    }
}

import Domain

/// The catalogue's in-memory state and what serves its reads: the
/// `CatalogState`, each product's committed row version, and the list
/// order (case-folded name, then id) kept sorted so a page is a binary
/// search plus a short scan. Lives behind the client's lock.
struct CatalogSnapshot: Sendable {
    private(set) var state: CatalogState
    private var versions: [ProductID: Int64] = [:]
    /// Sorted ascending; one entry per product.
    private var order: [ProductCursor] = []

    init(currency: Currency) {
        state = CatalogState(currency: currency)
    }

    init(currency: Currency, loaded: [VersionedProduct]) throws(DomainError) {
        state = try CatalogState(currency: currency, products: loaded.map(\.product))
        for row in loaded { versions[row.product.id] = row.version }
        order = loaded.map { CatalogSnapshot.position(of: $0.product) }.sorted()
    }

    /// Applies a committed row unless a newer version is already applied.
    /// Returns true when it was applied (and should be published).
    mutating func apply(_ row: VersionedProduct) throws(DomainError) -> Bool {
        let id = row.product.id
        if let known = versions[id], known >= row.version { return false }
        if let old = state.product(id) {
            try state.update(row.product)
            let oldPosition = CatalogSnapshot.position(of: old)
            let newPosition = CatalogSnapshot.position(of: row.product)
            if oldPosition != newPosition {
                remove(oldPosition)
                insert(newPosition)
            }
        } else {
            try state.insert(row.product)
            insert(CatalogSnapshot.position(of: row.product))
        }
        versions[id] = row.version
        return true
    }

    /// One page of `query` (already validated), starting after `after`.
    func page(_ query: ProductQuery, after: ProductCursor?) -> ProductPage {
        let needle = query.text?.lowercased()
        var index = after.map(firstIndex(after:)) ?? 0
        var items: [Product] = []
        var nextCursor: String?
        while index < order.count {
            let position = order[index]
            index += 1
            guard let product = state.products[position.productID] else { continue }
            if !query.includeInactive && !product.active { continue }
            if let needle, !position.foldedName.contains(needle) { continue }
            if items.count == query.limit {
                nextCursor = CatalogSnapshot.position(of: items[items.count - 1]).encoded
                break
            }
            items.append(product)
        }
        return ProductPage(items: items, nextCursor: nextCursor)
    }

    static func position(of product: Product) -> ProductCursor {
        ProductCursor(foldedName: product.name.lowercased(), productID: product.id)
    }

    /// The first index whose entry is not less than `position`.
    private func lowerBound(_ position: ProductCursor) -> Int {
        var low = 0
        var high = order.count
        while low < high {
            let middle = (low + high) / 2
            if order[middle] < position { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func firstIndex(after position: ProductCursor) -> Int {
        let index = lowerBound(position)
        return index < order.count && order[index] == position ? index + 1 : index
    }

    private mutating func insert(_ position: ProductCursor) {
        order.insert(position, at: lowerBound(position))
    }

    private mutating func remove(_ position: ProductCursor) {
        let index = lowerBound(position)
        if index < order.count && order[index] == position { order.remove(at: index) }
    }
}

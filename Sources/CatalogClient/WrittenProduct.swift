import Domain

/// A product row as a write left it, with the stock it held just before
/// that write: whether the write took the stock to its alert level
/// (`Product.fellToLowStock`) is decided from both, whichever write moved
/// it (a reservation, a retaken released checkout, an admin's patch).
/// Each stock write is one statement on the row it locks, so the stock
/// before is exact even when checkouts on several replicas race.
struct WrittenProduct: Sendable {
    let row: VersionedProduct
    /// nil: the write inserted the row.
    let stockBefore: Int?

    var fellToLowStock: Bool {
        guard let stockBefore else { return false }
        return row.product.fellToLowStock(from: stockBefore)
    }
}

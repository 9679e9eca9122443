import Domain

/// A product as committed, with the row's `version`: the in-memory working set
/// applies a commit only when its version is newer than what it holds, so
/// commits that finish out of order (group commit, actor re-entrancy) can
/// never roll the working set back.
struct VersionedProduct: Sendable, Hashable {
    let product: Product
    let version: Int64
}

/// A row of the catalogue's tables that cannot be read back as a valid
/// value (written by something other than this client).
struct CatalogDataError: Error, CustomStringConvertible {
    let description: String
}

import Axiom
import Domain

/// A product as committed, with the row's `version`: the working set
/// applies a commit only when its version is newer than what it holds, so
/// commits that finish out of order (group commit, actor re-entrancy) can
/// never roll it back.
typealias VersionedProduct = Versioned<ProductID, Product>

extension Versioned where Key == ProductID, Value == Product {
    init(product: Product, version: Int64) {
        self.init(product.id, product, version: version)
    }

    var product: Product { value }
}

/// A row of the catalogue's tables that cannot be read back as a valid
/// value (written by something other than this client).
struct CatalogDataError: Error, CustomStringConvertible {
    let description: String
}

/// The owned state of `CatalogClient`: the products it holds in memory (a
/// bounded working set of the products table, not the whole catalogue) by
/// id, their SKU index, and the deployment's one currency (every price is
/// in it).
public struct CatalogState: Sendable, Equatable {
    public let currency: Currency
    public private(set) var products: [ProductID: Product] = [:]
    /// SKU → product.
    public private(set) var idsBySKU: [String: ProductID] = [:]

    public init(currency: Currency) {
        self.currency = currency
    }

    /// A state holding `products` (loaded from storage); the same checks as
    /// inserting them one by one.
    public init(currency: Currency, products: some Sequence<Product>) throws {
        self.currency = currency
        for product in products { try insert(product) }
    }

    public var count: Int { products.count }

    public func product(_ id: ProductID) -> Product? { products[id] }

    public func product(sku: String) -> Product? { idsBySKU[sku].flatMap { products[$0] } }

    /// Adds a new, valid product priced in the catalogue's currency. Throws
    /// `duplicate(sku)` / `duplicate(id)` when taken.
    public mutating func insert(_ product: Product) throws {
        try check(product)
        if products[product.id] != nil { throw EntityError.duplicate(field: "id", value: product.id.description) }
        if idsBySKU[product.sku] != nil { throw EntityError.duplicate(field: "sku", value: product.sku) }
        products[product.id] = product
        idsBySKU[product.sku] = product.id
    }

    /// Replaces an existing product with a valid new version of it.
    public mutating func update(_ product: Product) throws {
        try check(product)
        guard let old = products[product.id] else {
            throw EntityError.notFound(entity: "product", id: product.id.description)
        }
        if let holder = idsBySKU[product.sku], holder != product.id {
            throw EntityError.duplicate(field: "sku", value: product.sku)
        }
        idsBySKU[old.sku] = nil
        idsBySKU[product.sku] = product.id
        products[product.id] = product
    }

    private func check(_ product: Product) throws {
        var errors = product.validate() ?? ValidationError()
        if product.price.currency != currency {
            errors.add("price.currency", .inconsistent, "price must be in \(currency.code)")
        }
        try errors.throwIfAny()
    }
}

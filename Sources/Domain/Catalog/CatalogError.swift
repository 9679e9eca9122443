/// Refusals particular to the catalogue and its stock (409: the product's
/// state stands in the way).
public enum CatalogError: Refusal, Hashable {
    /// A reservation asked for more than is in stock.
    case insufficientStock(productID: ProductID, requested: Int, available: Int)
    /// The product is deactivated and cannot be reserved or ordered.
    case productInactive(ProductID)
    /// Stock coming back (a release or a return) would take the product past
    /// its maximum stock; nothing was returned (the units are not dropped).
    case stockLimitExceeded(productID: ProductID, returned: Int, stock: Int)

    public var code: String {
        switch self {
        case .insufficientStock: "insufficient_stock"
        case .productInactive: "product_inactive"
        case .stockLimitExceeded: "stock_limit_exceeded"
        }
    }

    public var category: RefusalCategory { .conflict }

    public var message: String {
        switch self {
        case .insufficientStock(let id, let requested, let available):
            "product \(id) has \(available) in stock, \(requested) requested"
        case .productInactive(let id):
            "product \(id) is not available"
        case .stockLimitExceeded(let id, let returned, let stock):
            "returning \(returned) to product \(id) (stock \(stock)) would pass the maximum stock; nothing was returned"
        }
    }
}

import Domain

/// A quantity of one product to reserve or to return to stock. Checkout
/// makes these from the cart's lines; a cancellation from the order's lines.
public struct StockLine: Hashable, Sendable {
    public static let maxLines = 100
    public static let quantityRange = 1 ... Product.stockRange.upperBound

    public let productID: ProductID
    public let quantity: Int

    public init(productID: ProductID, quantity: Int) {
        self.productID = productID
        self.quantity = quantity
    }

    /// Every failing line: none (`lines`, required), more than `maxLines`
    /// (`lines`, too_long), a quantity outside 1…1 000 000
    /// (`lines[i].quantity`), a product named twice (`lines[i].product_id`).
    static func validate(_ lines: [StockLine]) -> ValidationError? {
        var errors = ValidationError()
        if lines.isEmpty { errors.add("lines", .required, "at least one line is required") }
        if lines.count > maxLines { errors.add("lines", .tooLong, "at most \(maxLines) lines") }
        var seen = Set<ProductID>()
        for (index, line) in lines.enumerated() {
            if !quantityRange.contains(line.quantity) {
                errors.add("lines[\(index)].quantity", .outOfRange,
                           "quantity must be between \(quantityRange.lowerBound) and \(quantityRange.upperBound)")
            }
            if !seen.insert(line.productID).inserted {
                errors.add("lines[\(index)].product_id", .inconsistent, "product \(line.productID) appears twice")
            }
        }
        return errors.orNil
    }
}

/// One product in a cart and how many (1…99). The product is referenced by
/// id only; its name and price come from the catalogue when the cart is read.
public struct CartLine: Hashable, Sendable, Codable, Validatable {
    public static let quantityRange = 1 ... 99

    public let productID: ProductID
    public let quantity: Int

    public init(productID: ProductID, quantity: Int) {
        self.productID = productID
        self.quantity = quantity
    }

    enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case quantity
    }

    public func validate() -> ValidationError? {
        CartLine.checkQuantity(quantity).map { ValidationError([$0]) }
    }

    static func checkQuantity(_ quantity: Int) -> FieldError? {
        quantityRange.contains(quantity) ? nil : FieldError(
            field: "quantity", code: .outOfRange,
            message: "quantity must be between \(quantityRange.lowerBound) and \(quantityRange.upperBound)")
    }
}

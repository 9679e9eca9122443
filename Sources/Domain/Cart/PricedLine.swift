/// A cart line with the catalogue's name and current price, as the pricing
/// client computes it. Encodes as `{product_id, name, quantity, unit_price,
/// line_total}`.
public struct PricedLine: Hashable, Sendable, Codable {
    public let productID: ProductID
    public let name: String
    public let quantity: Int
    public let unitPrice: Money
    public let lineTotal: Money

    /// `lineTotal` is `unitPrice × quantity`; `overflow` if it cannot be.
    public init(productID: ProductID, name: String, quantity: Int, unitPrice: Money) throws(DomainError) {
        self.productID = productID
        self.name = name
        self.quantity = quantity
        self.unitPrice = unitPrice
        self.lineTotal = try unitPrice.multiplied(by: quantity)
    }

    enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case name, quantity
        case unitPrice = "unit_price"
        case lineTotal = "line_total"
    }
}

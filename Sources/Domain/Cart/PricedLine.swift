/// A cart line with the catalogue's name and current price, as the pricing
/// client computes it. Encodes as `{product_id, name, quantity, unit_price,
/// line_total, available_quantity}`, the last only when known.
public struct PricedLine: Hashable, Sendable, Codable {
    public let productID: ProductID
    public let name: String
    public let quantity: Int
    public let unitPrice: Money
    public let lineTotal: Money
    /// How many of `quantity` the product's stock holds now (0 when out of
    /// stock, at most `quantity`): less than `quantity` and a checkout now
    /// is refused `insufficient_stock`. Capped at the line's own quantity so
    /// that the cart's representation, and its ETag, change only when stock
    /// decides about this line, not with every other shopper's purchase.
    /// Nil where stock is not the question (a line as an order froze it).
    public let availableQuantity: Int?

    /// `lineTotal` is `unitPrice × quantity`; `overflow` if it cannot be.
    /// `stock`, when given, makes `availableQuantity` (`min(stock, quantity)`).
    public init(productID: ProductID, name: String, quantity: Int, unitPrice: Money,
                stock: Int? = nil) throws {
        self.productID = productID
        self.name = name
        self.quantity = quantity
        self.unitPrice = unitPrice
        self.lineTotal = try unitPrice.multiplied(by: quantity)
        self.availableQuantity = stock.map { max(0, min($0, quantity)) }
    }

    enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case name, quantity
        case unitPrice = "unit_price"
        case lineTotal = "line_total"
        case availableQuantity = "available_quantity"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        productID = try container.decode(ProductID.self, forKey: .productID)
        name = try container.decode(String.self, forKey: .name)
        quantity = try container.decode(Int.self, forKey: .quantity)
        unitPrice = try container.decode(Money.self, forKey: .unitPrice)
        lineTotal = try container.decode(Money.self, forKey: .lineTotal)
        availableQuantity = try container.decodeIfPresent(Int.self, forKey: .availableQuantity)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(productID, forKey: .productID)
        try container.encode(name, forKey: .name)
        try container.encode(quantity, forKey: .quantity)
        try container.encode(unitPrice, forKey: .unitPrice)
        try container.encode(lineTotal, forKey: .lineTotal)
        try container.encodeIfPresent(availableQuantity, forKey: .availableQuantity)
    }
}

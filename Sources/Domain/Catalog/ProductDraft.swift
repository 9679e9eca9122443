/// A new product as submitted (`POST /products`): the product's fields
/// without the id. `name` and `description` are trimmed of surrounding
/// whitespace and put in NFC; `description` defaults to empty, `stock` to 0, `active` to
/// true, `low_stock_threshold` to none (`null` too: no alert).
public struct ProductDraft: Sendable, Decodable, Validatable {
    public let sku: String
    public let name: String
    public let description: String
    public let price: Money
    public let stock: Int
    public let active: Bool
    public let lowStockThreshold: Int?

    public init(sku: String, name: String, description: String = "", price: Money, stock: Int = 0,
                active: Bool = true, lowStockThreshold: Int? = nil) {
        self.sku = sku
        self.name = name
        self.description = description
        self.price = price
        self.stock = stock
        self.active = active
        self.lowStockThreshold = lowStockThreshold
    }

    enum CodingKeys: String, CodingKey {
        case sku, name, description, price, stock, active
        case lowStockThreshold = "low_stock_threshold"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sku = try container.decode(String.self, forKey: .sku)
        name = try container.decode(String.self, forKey: .name)
        description = try container.decodeOptionalMember(String.self, forKey: .description) ?? ""
        price = try container.decode(Money.self, forKey: .price)
        stock = try container.decodeOptionalMember(Int.self, forKey: .stock) ?? 0
        active = try container.decodeOptionalMember(Bool.self, forKey: .active) ?? true
        lowStockThreshold = try container.decodeIfPresent(Int.self, forKey: .lowStockThreshold)
    }

    /// Every failing field of the product this draft would make.
    public func validate() -> ValidationError? {
        makeUnchecked(id: ProductID(ProductDraft.anyID)).validate()
    }

    public func makeProduct(id: ProductID) throws -> Product {
        try makeUnchecked(id: id).validated()
    }

    private func makeUnchecked(id: ProductID) -> Product {
        Product(id: id, sku: sku, name: Product.normalizedName(name),
                description: Product.normalizedDescription(description),
                price: price, stock: stock, active: active, lowStockThreshold: lowStockThreshold)
    }

    private static let anyID = ProductID("00000000-0000-0000-0000-000000000000")!.rawValue
}

/// An admin's change to a product (`PATCH /products/{id}`): any of name,
/// description, price, stock, active and low_stock_threshold; absent
/// fields keep their value, and `low_stock_threshold: null` clears the
/// threshold (the one member whose null is a value).
/// The SKU is the product's business identity and does not change.
///
/// `applied(to:)` builds the whole new product and validates it, so every
/// failing field is reported at once.
public struct ProductPatch: Sendable, Decodable, Equatable {
    public let name: String?
    public let description: String?
    public let price: Money?
    public let stock: Int?
    public let active: Bool?
    public let lowStockThreshold: ThresholdChange

    /// What a patch does to the stock alert threshold.
    public enum ThresholdChange: Sendable, Equatable {
        case keep
        case clear
        case set(Int)

        /// As `Product.copy` takes it: nil keeps, `.some(nil)` clears.
        var replacement: Int?? {
            switch self {
            case .keep: nil
            case .clear: .some(nil)
            case .set(let threshold): .some(threshold)
            }
        }
    }

    public init(name: String? = nil, description: String? = nil, price: Money? = nil, stock: Int? = nil,
                active: Bool? = nil, lowStockThreshold: ThresholdChange = .keep) {
        self.name = name
        self.description = description
        self.price = price
        self.stock = stock
        self.active = active
        self.lowStockThreshold = lowStockThreshold
    }

    enum CodingKeys: String, CodingKey {
        case name, description, price, stock, active
        case lowStockThreshold = "low_stock_threshold"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeOptionalMember(String.self, forKey: .name)
        description = try container.decodeOptionalMember(String.self, forKey: .description)
        price = try container.decodeOptionalMember(Money.self, forKey: .price)
        stock = try container.decodeOptionalMember(Int.self, forKey: .stock)
        active = try container.decodeOptionalMember(Bool.self, forKey: .active)
        if !container.contains(.lowStockThreshold) {
            lowStockThreshold = .keep
        } else if try container.decodeNil(forKey: .lowStockThreshold) {
            lowStockThreshold = .clear
        } else {
            lowStockThreshold = .set(try container.decode(Int.self, forKey: .lowStockThreshold))
        }
    }

    public var isEmpty: Bool {
        name == nil && description == nil && price == nil && stock == nil && active == nil && lowStockThreshold == .keep
    }

    public func applied(to product: Product) throws -> Product {
        try product.copy(name: name.map(Product.normalizedName),
                         description: description.map(Product.normalizedDescription),
                         price: price, stock: stock, active: active,
                         lowStockThreshold: lowStockThreshold.replacement).validated()
    }
}

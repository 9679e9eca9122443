/// An admin's change to a product (`PATCH /products/{id}`): any of name,
/// description, price, stock and active; absent fields keep their value.
/// The SKU is the product's business identity and does not change.
///
/// `applied(to:)` builds the whole new product and validates it, so every
/// failing field is reported at once.
public struct ProductPatch: Sendable, Codable, Equatable {
    public let name: String?
    public let description: String?
    public let price: Money?
    public let stock: Int?
    public let active: Bool?

    public init(name: String? = nil, description: String? = nil, price: Money? = nil, stock: Int? = nil,
                active: Bool? = nil) {
        self.name = name
        self.description = description
        self.price = price
        self.stock = stock
        self.active = active
    }

    enum CodingKeys: String, CodingKey {
        case name, description, price, stock, active
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeOptionalMember(String.self, forKey: .name)
        description = try container.decodeOptionalMember(String.self, forKey: .description)
        price = try container.decodeOptionalMember(Money.self, forKey: .price)
        stock = try container.decodeOptionalMember(Int.self, forKey: .stock)
        active = try container.decodeOptionalMember(Bool.self, forKey: .active)
    }

    public var isEmpty: Bool { name == nil && description == nil && price == nil && stock == nil && active == nil }

    public func applied(to product: Product) throws -> Product {
        try product.copy(name: name.map(Product.normalizedName),
                         description: description.map(Product.normalizedDescription),
                         price: price, stock: stock, active: active).validated()
    }
}

/// A cart line the pricing could not price: its product is gone from the
/// catalogue or deactivated. It is left out of the total and reported so the
/// user can remove it; checkout refuses it. Encodes as `{product_id, name,
/// quantity, reason}` with `name` null (the pricing client names no product
/// that is not on sale).
public struct UnavailableLine: Hashable, Sendable, Codable {
    public enum Reason: String, Hashable, Sendable, Codable {
        /// No product with that id in the catalogue.
        case notFound = "not_found"
        /// The product exists but is deactivated.
        case inactive
    }

    public let productID: ProductID
    public let name: String?
    public let quantity: Int
    public let reason: Reason

    public init(productID: ProductID, name: String?, quantity: Int, reason: Reason) {
        self.productID = productID
        self.name = name
        self.quantity = quantity
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case productID = "product_id"
        case name, quantity, reason
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        productID = try container.decode(ProductID.self, forKey: .productID)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        quantity = try container.decode(Int.self, forKey: .quantity)
        reason = try container.decode(Reason.self, forKey: .reason)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(productID, forKey: .productID)
        try container.encode(name, forKey: .name)
        try container.encode(quantity, forKey: .quantity)
        try container.encode(reason, forKey: .reason)
    }
}

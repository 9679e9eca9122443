/// What the pricing client makes of a cart: the priced lines and their total
/// (`priced`), and the lines it could not price (`unavailable`, not in the
/// total). Encodes flat as `{items, total, unavailable_items}`, so the cart
/// shape of the API (`{items, total}`) keeps its names.
public struct CartQuote: Hashable, Sendable, Codable {
    public let priced: PricedCart
    public let unavailable: [UnavailableLine]

    public init(priced: PricedCart, unavailable: [UnavailableLine] = []) {
        self.priced = priced
        self.unavailable = unavailable
    }

    public var lines: [PricedLine] { priced.lines }
    public var total: Money { priced.total }

    enum CodingKeys: String, CodingKey {
        case unavailable = "unavailable_items"
    }

    public init(from decoder: any Decoder) throws {
        priced = try PricedCart(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        unavailable = try container.decodeIfPresent([UnavailableLine].self, forKey: .unavailable) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        try priced.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(unavailable, forKey: .unavailable)
    }
}

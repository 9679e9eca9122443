/// One page of the product list: the products in list order and the cursor
/// of the next page, `nil` on the last one. Encodes as
/// `{"items": [...], "next_cursor": "…" | null}`.
public struct ProductPage: Hashable, Sendable, Codable {
    public let items: [Product]
    public let nextCursor: String?

    public init(items: [Product], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        items = try container.decode([Product].self, forKey: .items)
        nextCursor = try container.decodeIfPresent(String.self, forKey: .nextCursor)
    }

    /// Writes `next_cursor` as `null` on the last page rather than leaving it out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}

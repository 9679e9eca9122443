/// One page of a list: the items in list order and the cursor of the next
/// page, `nil` on the last one. Every list the API serves has this shape:
/// `{"items": [...], "next_cursor": "…" | null}`.
public struct Page<Item: Hashable & Sendable>: Hashable, Sendable {
    public let items: [Item]
    public let nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    /// The first `limit` of `read`, a read of up to `limit + 1` in list
    /// order: one more than the page says another follows, after the last
    /// item's `cursorOf`.
    public init(readAhead read: [Item], limit: Int, cursorOf: (Item) -> String) {
        let items = Array(read.prefix(Swift.max(0, limit)))
        self.init(items: items, nextCursor: read.count > items.count ? items.last.map(cursorOf) : nil)
    }

    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }
}

extension Page: Decodable where Item: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        items = try container.decode([Item].self, forKey: .items)
        nextCursor = try container.decodeIfPresent(String.self, forKey: .nextCursor)
    }

}

extension Page: Encodable where Item: Encodable {
    /// Writes `next_cursor` as `null` on the last page rather than leaving it
    /// out: clients test for it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}

/// One page of the product list.
public typealias ProductPage = Page<Product>

extension Page {
    /// The page of `all` (already in list order) that follows the item whose
    /// `cursorOf` is `cursor` (the first page without one), `limit` items
    /// long. A cursor that names no item is a validation failure on
    /// `cursor`: it is not one this service issued.
    public static func slice(_ all: [Item], limit: Int, after cursor: String?,
                             cursorOf: (Item) -> String) throws -> Page {
        var start = 0
        if let cursor {
            guard let index = all.firstIndex(where: { cursorOf($0) == cursor }) else {
                throw ValidationError([FieldError(field: "cursor", code: .invalidFormat,
                                                                         message: "cursor is not one this service issued")])
            }
            start = index + 1
        }
        // Counted from what is left, never `start + limit`: callers pass a
        // validated limit (1...100), but a page must not trap on one that
        // is not (Int.max overflowed the sum, a negative one made a
        // reversed range).
        let end = start + Swift.max(0, Swift.min(limit, all.count - start))
        let slice = Array(all[start..<end])
        return Page(items: slice, nextCursor: end < all.count ? slice.last.map(cursorOf) : nil)
    }
}

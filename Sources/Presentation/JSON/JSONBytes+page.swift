import Formats

extension JSONBytes {
    /// `{"items":[…],"next_cursor":…}`, a keyset page as `Page` and
    /// `ProductPage` encode: each item written by `write`, the cursor null
    /// on the last page.
    mutating func page<Item>(_ items: [Item], nextCursor: String?, _ write: (Item, inout JSONBytes) -> Void) {
        raw("{\"items\":[")
        for (index, item) in items.enumerated() {
            if index > 0 { raw(",") }
            write(item, &self)
        }
        raw("],\"next_cursor\":")
        if let nextCursor { string(nextCursor) } else { raw("null") }
        raw("}")
    }
}

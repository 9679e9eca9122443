import Domain

/// `{items, next_cursor}` of ledger entries (`GET /orders/{id}/ledger`,
/// whole, and `GET /payments/ledger`, a page).
struct LedgerPage: Encodable {
    let items: [LedgerEntry]
    let nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }

    init(items: [LedgerEntry], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    /// A page of `limit` from up to `limit + 1` entries read: one more
    /// says there is a next page.
    init(_ entries: [LedgerEntry], limit: Int) {
        items = Array(entries.prefix(limit))
        nextCursor = entries.count > limit ? items.last.map(LedgerQuery.cursor(after:)) : nil
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}

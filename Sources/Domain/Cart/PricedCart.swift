/// A cart priced against the catalogue: its lines with names, unit prices
/// and line totals, and the total. Encodes as `{items, total}`.
public struct PricedCart: Hashable, Sendable, Codable {
    public let lines: [PricedLine]
    public let total: Money

    /// Sums the lines in `currency`; `currencyMismatch` if a line is priced
    /// in another, `overflow` if the sum leaves the range.
    public init(lines: [PricedLine], currency: Currency) throws {
        self.lines = lines
        self.total = try Money.sum(lines.map(\.lineTotal), currency: currency)
    }

    enum CodingKeys: String, CodingKey {
        case lines = "items"
        case total
    }

    public var isEmpty: Bool { lines.isEmpty }
}

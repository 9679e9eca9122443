/// One page request of the product list (`GET /products?q=&limit=&cursor=`).
///
/// - `text` (`q`): search words, matched (case- and accent-insensitively)
///   against name, description and SKU, the last word also as a prefix
///   (search-as-you-type); trimmed, and an empty text means no filter. At
///   most `maxTextBytes` UTF-8 bytes and `maxTerms` words, so that one
///   query's cost stays bounded.
/// - `limit`: 1…100 (default 20).
/// - `cursor`: the `next_cursor` of the previous page, opaque; at most
///   `maxCursorLength` bytes (the catalogue client checks its content).
/// - `shown`: which products are listed by their `active` flag — the
///   public list shows active products only, an admin's list may ask for
///   all, or for the deactivated ones alone (`GET /admin/products?active=false`).
public struct ProductQuery: Hashable, Sendable, Validatable {
    /// The products a list shows, by their `active` flag.
    public enum Shown: Hashable, Sendable {
        case active, inactive, all

        /// Whether a product with this `active` flag is listed.
        public func keeps(active: Bool) -> Bool {
            switch self {
            case .active: active
            case .inactive: !active
            case .all: true
            }
        }
    }

    public static let limitRange = 1 ... 100
    public static let defaultLimit = 20
    public static let maxTextBytes = 200
    public static let maxTerms = 8
    public static let maxCursorLength = 1024

    public let text: String?
    public let limit: Int
    public let cursor: String?
    public let shown: Shown
    /// Deactivated products may be listed (admins).
    public var includeInactive: Bool { shown != .active }

    /// `shown` wins over `includeInactive` (all, or active only).
    public init(text: String? = nil, limit: Int = ProductQuery.defaultLimit, cursor: String? = nil,
                includeInactive: Bool = false, shown: Shown? = nil) {
        let trimmed = text.map(TextRules.trimmed)
        self.text = trimmed?.isEmpty == true ? nil : trimmed
        self.limit = limit
        self.cursor = cursor?.isEmpty == true ? nil : cursor
        self.shown = shown ?? (includeInactive ? .all : .active)
    }

    /// The words of `text`, split at white space, in order.
    public var terms: [Substring] {
        text?.split(whereSeparator: \.isWhitespace) ?? []
    }

    /// Every failing parameter, named as the API names them (`q`, `limit`,
    /// `cursor`).
    public func validate() -> ValidationError? {
        var errors = ValidationError()
        if !ProductQuery.limitRange.contains(limit) {
            errors.add("limit", .outOfRange,
                       "limit must be between \(ProductQuery.limitRange.lowerBound) and \(ProductQuery.limitRange.upperBound)")
        }
        if let text, text.utf8.count > ProductQuery.maxTextBytes || terms.count > ProductQuery.maxTerms {
            errors.add("q", .tooLong,
                       "q must be at most \(ProductQuery.maxTextBytes) bytes and \(ProductQuery.maxTerms) words")
        }
        if let cursor, cursor.utf8.count > ProductQuery.maxCursorLength {
            errors.add("cursor", .tooLong, "cursor is not one this service issued")
        }
        return errors.orNil
    }
}

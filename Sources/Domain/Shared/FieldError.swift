/// One failing field of a validation: where, a stable machine code, and a
/// human message. `field` is a snake_case path as the API names it
/// (`email`, `price.currency`, `items[2].quantity`).
public struct FieldError: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Stable machine codes. Clients switch on these; never rename one.
    public enum Code: String, Hashable, Sendable, Codable, CaseIterable {
        /// Missing or blank.
        case required
        /// Fewer characters (or items) than the minimum.
        case tooShort = "too_short"
        /// More characters (or items, or bytes) than the maximum.
        case tooLong = "too_long"
        /// Does not match the expected syntax.
        case invalidFormat = "invalid_format"
        /// A number outside its allowed range.
        case outOfRange = "out_of_range"
        /// Disagrees with another field (a total with its lines, a currency
        /// with the others).
        case inconsistent
        /// A member the request body does not take (misspelt, or not
        /// settable here).
        case unknownField = "unknown_field"
    }

    public let field: String
    public let code: Code
    public let message: String

    public init(field: String, code: Code, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }

    public var description: String { "\(field): \(code.rawValue) (\(message))" }
}

/// An ISO 4217 alphabetic currency code: exactly three ASCII upper-case
/// letters. Whether the code is actually assigned by ISO is not checked; the
/// deployment's configured currency is the only one in use.
public struct Currency: Hashable, Sendable, Codable, CustomStringConvertible {
    public let code: String

    /// Throws a `ValidationError` (`currency`, `invalid_format`) unless
    /// `code` is three upper-case letters A–Z.
    public init(_ code: String, field: String = "currency") throws {
        guard let error = Currency.check(code, field: field) else {
            self.code = code
            return
        }
        throw ValidationError([error])
    }

    /// The failure for `code`, or `nil` when it is a well-formed code.
    public static func check(_ code: String, field: String = "currency") -> FieldError? {
        let bytes = Array(code.utf8)
        if bytes.count == 3, bytes.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) {
            return nil
        }
        return FieldError(field: field, code: .invalidFormat,
                          message: "\(field) must be an ISO 4217 code of three upper-case letters")
    }

    public static let usd = Currency(trusted: "USD")
    public static let eur = Currency(trusted: "EUR")

    private init(trusted code: String) {
        self.code = code
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard Currency.check(text) == nil else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 4217 code: \(text)")
        }
        code = text
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }

    public var description: String { code }
}

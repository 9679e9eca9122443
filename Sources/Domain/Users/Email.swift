/// A syntax-checked email address.
///
/// Two forms are kept:
/// - `address`: what the user typed, with surrounding whitespace removed.
///   It is what the API shows back (people notice when `Ana.Lopez@…` comes
///   back as `ana.lopez@…`).
/// - `normalized`: `address` lower-cased (ASCII). It is the uniqueness and
///   login key: `Ana@Example.com` and `ana@example.com` are the same account
///   (unique case-insensitively).
///
/// Syntax is the common dot-atom subset of RFC 5322 in ASCII: `local@domain`,
/// local part 1–64 characters of letters, digits and ``!#$%&'*+/=?^_`{|}~-``
/// with single dots between them; a domain of at least two dot-separated
/// labels of letters, digits and inner hyphens (1–63 each), a non-numeric
/// last label; 254 characters in all. Quoted local parts, IP-literal domains
/// and non-ASCII (IDN must arrive as punycode) are refused.
///
/// `==` compares both forms; use `normalized` to ask "same account?".
public struct Email: Hashable, Sendable, Codable, CustomStringConvertible {
    public let address: String
    public let normalized: String

    public static let maxLength = 254

    /// Throws a `ValidationError` naming `field` when `text` is not an address.
    public init(_ text: String, field: String = "email") throws {
        let trimmed = TextRules.trimmed(text)
        if let error = Email.check(trimmed, field: field) {
            throw ValidationError([error])
        }
        address = trimmed
        normalized = Email.lowercased(trimmed)
    }

    /// The failure for `text` (after trimming), or `nil` when it is a valid address.
    public static func check(_ text: String, field: String = "email") -> FieldError? {
        let trimmed = TextRules.trimmed(text)
        if trimmed.isEmpty {
            return FieldError(field: field, code: .required, message: "\(field) is required")
        }
        let bytes = Array(trimmed.utf8)
        if bytes.count > maxLength {
            return FieldError(field: field, code: .tooLong, message: "\(field) must be at most \(maxLength) characters")
        }
        guard isValidSyntax(bytes) else {
            return FieldError(field: field, code: .invalidFormat, message: "\(field) is not a valid email address")
        }
        return nil
    }

    private static func isValidSyntax(_ bytes: [UInt8]) -> Bool {
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")) else { return false }
        let local = bytes[..<at]
        let domain = bytes[(at + 1)...]
        guard !local.isEmpty, local.count <= 64, !domain.isEmpty else { return false }
        let atext = Set("!#$%&'*+/=?^_`{|}~-".utf8)
        for atom in local.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            guard !atom.isEmpty, atom.allSatisfy({ isAlphanumeric($0) || atext.contains($0) }) else { return false }
        }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        for label in labels {
            guard (1 ... 63).contains(label.count),
                  label.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") }),
                  label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-")
            else { return false }
        }
        return !labels.last!.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// ASCII lower-casing; the syntax admits nothing else.
    private static func lowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// The uniqueness key of any text, valid or not (for look-ups at login).
    public static func normalizedKey(_ text: String) -> String {
        lowercased(TextRules.trimmed(text))
    }

    /// Decodes from the address string, re-checking the syntax.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try Email(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an email address")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(address)
    }

    public var description: String { address }
}

/// Where an order goes and whom the carrier contacts: a name, one to three
/// address lines, a city, a postal code, an ISO 3166-1 alpha-2 country
/// (upper case), and a phone number or an email (at least one; a carrier
/// needs a way to reach the recipient). Encodes as `{name, lines, city,
/// postal_code, country, phone?, email?}`. Decodes structurally; callers
/// with untrusted input call `validated()`, which names every failing
/// field.
public struct ShippingAddress: Hashable, Sendable, Codable, Validatable {
    public let name: String
    public let lines: [String]
    public let city: String
    public let postalCode: String
    public let country: String
    public let phone: String?
    public let email: String?

    public static let maxLines = 3
    public static let maxLineLength = 100
    public static let maxPostalCodeLength = 16

    /// Memberwise, as stored; does not validate.
    public init(name: String, lines: [String], city: String, postalCode: String, country: String,
                phone: String? = nil, email: String? = nil) {
        self.name = name
        self.lines = lines
        self.city = city
        self.postalCode = postalCode
        self.country = country
        self.phone = phone
        self.email = email
    }

    enum CodingKeys: String, CodingKey {
        case name, lines, city
        case postalCode = "postal_code"
        case country, phone, email
    }

    public func validate() -> ValidationError? {
        var errors = ValidationError()
        TextRules.checkLine(name, field: "name", max: Self.maxLineLength, into: &errors)
        if lines.isEmpty {
            errors.add("lines", .required, "at least one address line is required")
        } else if lines.count > Self.maxLines {
            errors.add("lines", .tooLong, "at most \(Self.maxLines) address lines")
        }
        for (index, line) in lines.enumerated() {
            TextRules.checkLine(line, field: "lines[\(index)]", max: Self.maxLineLength, into: &errors)
        }
        TextRules.checkLine(city, field: "city", max: Self.maxLineLength, into: &errors)
        if postalCode.isEmpty {
            errors.add("postal_code", .required, "postal_code is required")
        } else if postalCode.utf8.count > Self.maxPostalCodeLength {
            errors.add("postal_code", .tooLong, "postal_code must be at most \(Self.maxPostalCodeLength) characters")
        } else if !Self.isPostalCode(postalCode) {
            errors.add("postal_code", .invalidFormat,
                       "postal_code is letters, digits, inner spaces and hyphens")
        }
        if !Self.countries.contains(country) {
            errors.add("country", .invalidFormat, "country must be an ISO 3166-1 alpha-2 code in upper case, like DE")
        }
        if phone == nil && email == nil {
            errors.add("phone", .required, "a phone number or an email is required")
        }
        if let phone, !Self.isPhone(phone) {
            errors.add("phone", .invalidFormat, "phone is E.164: a + then 7 to 15 digits, like +4930123456")
        }
        if let email, let error = Email.check(email, field: "email") {
            errors.add(error)
        } else if let email, email != TextRules.trimmed(email) {
            errors.add("email", .invalidFormat, "email must not start or end with whitespace")
        }
        return errors.orNil
    }

    /// Every country's postal codes fit this (UPU S42 formats use letters,
    /// digits, spaces and hyphens), not starting or ending with a separator.
    private static func isPostalCode(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
        guard let first = bytes.first, let last = bytes.last, isAlphanumeric(first), isAlphanumeric(last) else {
            return false
        }
        return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "-") }
    }

    /// E.164 (ITU-T): at most 15 digits including the country code.
    private static func isPhone(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "+") else { return false }
        let digits = bytes.dropFirst()
        return (7...15).contains(digits.count) && digits.first != UInt8(ascii: "0")
            && digits.allSatisfy { (0x30...0x39).contains($0) }
    }
}

import FoundationEssentials

/// Identity of a user across domains. Other domains refer to a user by this
/// value, never by holding a `User` (cross-domain references by id).
public struct UserID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UUID

    public init(_ rawValue: UUID) {
        self.rawValue = rawValue
    }

    /// Parses the canonical textual form; `nil` for anything else.
    public init?(_ text: String) {
        guard let uuid = UUIDText.parse(text) else { return nil }
        self.rawValue = uuid
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let uuid = UUIDText.parse(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a user id: \(text)")
        }
        rawValue = uuid
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Lower-case canonical form.
    public var description: String { UUIDText.format(rawValue) }
}

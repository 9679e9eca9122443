import FoundationEssentials

/// Shared behaviour of the UUID-backed identity types (`ProductID`,
/// `OrderID`, …), in the style of `UserID`: opaque, compared by value,
/// written and read as the lower-case canonical UUID string.
public protocol UUIDIdentifier: Hashable, Sendable, Codable, CustomStringConvertible {
    var rawValue: UUID { get }
    init(_ rawValue: UUID)
}

extension UUIDIdentifier {
    /// Parses the canonical textual form (either case); `nil` for anything else.
    public init?(_ text: String) {
        guard let uuid = UUIDText.parse(text) else { return nil }
        self.init(uuid)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let uuid = UUIDText.parse(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an id: \(text)")
        }
        self.init(uuid)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Lower-case canonical form.
    public var description: String { UUIDText.format(rawValue) }
}

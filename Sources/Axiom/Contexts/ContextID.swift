/// Process-unique identifier of one context instance, assigned by the
/// orchestrator's factory.
public struct ContextID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UInt64

    init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UInt64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: ContextID, rhs: ContextID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "context-\(rawValue)" }
}

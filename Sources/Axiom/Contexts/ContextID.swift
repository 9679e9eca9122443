/// Process-unique identifier of one context instance, assigned by the
/// orchestrator's factory. Coded as its number (`RawRepresentable`).
public struct ContextID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: ContextID, rhs: ContextID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "context-\(rawValue)" }
}

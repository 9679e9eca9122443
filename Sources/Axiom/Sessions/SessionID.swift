/// The key of a session (on this server: the value of the session cookie or
/// bearer token). Its description is redacted so that logs and errors never
/// carry a usable session secret.
public struct SessionID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The first few characters only.
    public var redacted: String { rawValue.count <= 4 ? "…" : String(rawValue.prefix(4)) + "…" }

    public var description: String { "session \(redacted)" }
}

/// The key of a session (on this server: the value of the session cookie or
/// bearer token). Its description is redacted so that logs and errors never
/// carry a usable session secret. Coded as its string (`RawRepresentable`).
public struct SessionID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: String) {
        self.init(rawValue: rawValue)
    }

    /// The first few characters only.
    public var redacted: String { rawValue.count <= 4 ? "…" : String(rawValue.prefix(4)) + "…" }

    public var description: String { "session \(redacted)" }
}

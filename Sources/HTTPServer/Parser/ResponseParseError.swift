/// Why a response could not be read: its framing or syntax breaks RFC 9112.
/// The connection it came on cannot be trusted any further.
public struct ResponseParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// Why a text is not a URL an outbound request may go to, in words for
/// the caller's error (an endpoint's validation).
public struct OutboundURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    public init(reason: String) { self.reason = reason }

    public var description: String { reason }
}

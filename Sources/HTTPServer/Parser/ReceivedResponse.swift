/// A whole response as `ResponseParser` read it: status, fields and the
/// body bytes kept (the trailers of a chunked body are not kept).
public struct ReceivedResponse: Sendable {
    public let version: HTTPVersion
    public let status: Int
    public let reason: String
    /// Names lowercased, values trimmed, in the order received.
    public let headers: HTTPFields
    /// At most the parser's `maxBodyBytes`.
    public let body: [UInt8]
    /// The body went on past `maxBodyBytes`: the rest was not read, so the
    /// connection is left mid-message and must be closed.
    public let bodyTruncated: Bool
    /// Whether the connection may carry another request: false when the
    /// server said `Connection: close`, answered HTTP/1.0 without
    /// keep-alive, delimited the body by closing, or the body was truncated.
    public let keepAlive: Bool
}

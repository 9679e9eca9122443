/// How the body of a request is delimited (RFC 9112 section 6).
enum BodyFraming: Equatable, Sendable {
    case none
    case length(Int)
    case chunked
}

/// What an `Expect` field asked for (RFC 9110 section 10.1.1).
enum Expectation: Equatable, Sendable {
    case none
    case continue100
    /// Anything but `100-continue`: answered 417.
    case unsupported(String)
}

/// The request line and header section, validated, before any body byte.
struct RequestHead: Sendable {
    var method: HTTPMethod
    var target: String
    var version: HTTPVersion
    var headers: HTTPFields
    var framing: BodyFraming
    /// Whether the client allows the connection to stay open after the response.
    var keepAlive: Bool
    var expectation: Expectation
}

/// A complete request as handlers see it: head, decoded path and query,
/// the body read in full, and what the router matched.
public struct HTTPRequest: Sendable {
    public let method: HTTPMethod
    /// The request-target exactly as received (origin- or absolute-form).
    public let target: String
    public let version: HTTPVersion
    public let headers: HTTPFields
    /// The path, percent-decoded, e.g. `/users/a b`.
    public let path: String
    /// The path's segments, each percent-decoded on its own, so an encoded
    /// `/` (`%2F`) stays inside its segment.
    public let pathSegments: [String]
    public let query: QueryParameters
    public let body: [UInt8]
    public let trailers: HTTPFields
    /// The peer's address, `ip:port`.
    public let remoteAddress: String
    /// The client's address without a port: the peer's, or behind a
    /// trusted proxy the nearest untrusted `X-Forwarded-For` hop. What
    /// every per-client rule counts by (see `ClientAddress`).
    public let clientAddress: String
    /// From a sane `X-Request-Id`, or generated; echoed on the response.
    public let id: String
    /// The exchange's W3C trace context (the caller's trace, our span).
    public let trace: TraceContext?
    /// The matched route pattern, e.g. `/users/{id}` (for logs and metrics).
    public internal(set) var route: String = ""
    /// Values of the pattern's `{parameters}`, percent-decoded.
    public internal(set) var parameters = RouteParameters()

    public init(method: HTTPMethod, target: String, version: HTTPVersion = .http1_1, headers: HTTPFields = HTTPFields(),
                path: String, pathSegments: [String], query: QueryParameters = QueryParameters(),
                body: [UInt8] = [], trailers: HTTPFields = HTTPFields(), remoteAddress: String = "", clientAddress: String = "", id: String = "",
                trace: TraceContext? = nil) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.path = path
        self.pathSegments = pathSegments
        self.query = query
        self.body = body
        self.trailers = trailers
        self.remoteAddress = remoteAddress
        self.clientAddress = clientAddress
        self.id = id
        self.trace = trace
    }
}

/// Query parameters in order of appearance, repeated names kept.
public struct QueryParameters: Sendable, Sequence {
    public private(set) var pairs: [(name: String, value: String)]

    public init(_ pairs: [(name: String, value: String)] = []) { self.pairs = pairs }

    public subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

    public func values(for name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { pairs.makeIterator() }
}

/// One request `OutboundHTTP` sends. The client writes `Host`,
/// `Content-Length` and `User-Agent: axiom-server` itself and owns the
/// connection's framing: a caller's `Host`, `Content-Length`,
/// `Transfer-Encoding` or `Connection` is dropped; a caller's `User-Agent`
/// replaces the default.
public struct OutboundHTTPRequest: Sendable {
    public var url: OutboundURL
    public var method: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(url: OutboundURL, method: String = "POST", headers: [(name: String, value: String)] = [],
                body: [UInt8] = []) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

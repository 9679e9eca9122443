/// Cross-origin access for browsers (Fetch standard, "CORS protocol"):
/// listed origins get `Access-Control-Allow-Origin` on their responses and
/// an answer to their preflight; any other origin gets no CORS field at
/// all, so the browser keeps the response from the page. No
/// `Access-Control-Allow-Credentials`: clients send bearer tokens, not
/// cookies, so a request never needs the browser's credentials mode.
public struct CORSPolicy: Sendable {
    public var allowedOrigins: Set<String>
    /// How long a browser may cache a preflight answer, in seconds.
    public var maxAge: Int

    public init(allowedOrigins: Set<String>, maxAge: Int = 600) {
        self.allowedOrigins = allowedOrigins
        self.maxAge = maxAge
    }

    /// Request fields a page may send beyond the CORS-safelisted ones.
    static let allowedHeaders = "Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Request-Id, traceparent, tracestate"
    /// Response fields a page's script may read beyond the safelisted ones.
    static let exposedHeaders = "ETag, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, Location, traceparent, tracestate"

    /// The request's `Origin` when it is one of ours.
    func allowedOrigin(_ headers: HTTPFields) -> String? {
        guard let origin = headers["origin"], allowedOrigins.contains(origin) else { return nil }
        return origin
    }

    /// Whether the request is a preflight: OPTIONS with `Origin` and
    /// `Access-Control-Request-Method` (Fetch, "CORS-preflight request").
    static func isPreflight(_ method: HTTPMethod, _ headers: HTTPFields) -> Bool {
        method == .options && headers.contains("origin") && headers.contains("access-control-request-method")
    }

    /// The answer to a preflight from `origin` for a path served with
    /// `methods`: an ok status (Fetch requires 200–299) with the allowed
    /// methods, headers and the cache lifetime.
    func preflight(origin: String, methods: [HTTPMethod]) -> HTTPResponse {
        let allow = methods.map(\.rawValue).joined(separator: ", ")
        return HTTPResponse(status: .noContent, headers: [
            "Allow": allow,
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Methods": allow,
            "Access-Control-Allow-Headers": Self.allowedHeaders,
            "Access-Control-Max-Age": String(maxAge),
        ])
    }

    /// Fields for an actual (not preflight) response to `origin`. A listed
    /// origin may also read Resource Timing's sizes (`Timing-Allow-Origin`,
    /// Resource Timing 4.5): how a page tells a 304 or a gzip body from
    /// the bytes it got.
    static func decorate(_ headers: inout HTTPFields, origin: String) {
        headers.set("Access-Control-Allow-Origin", origin)
        headers.set("Access-Control-Expose-Headers", exposedHeaders)
        headers.set("Timing-Allow-Origin", origin)
    }
}

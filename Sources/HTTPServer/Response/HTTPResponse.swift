/// What a handler answers: a status, header fields and a body that is either
/// complete or streamed. The server adds `Date`, `Content-Length` or
/// `Transfer-Encoding`, and `Connection`; handlers do not set those.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case empty
        case bytes([UInt8])
        /// Written piece by piece as chunks (HTTP/1.1) while the closure runs.
        /// The closure may keep the stream open (Server-Sent Events); it should
        /// return when `Task.isCancelled` turns true (the client went away or
        /// the server is shutting down).
        case stream(@Sendable (HTTPBodyWriter) async throws -> Void)
    }

    public var status: HTTPStatus
    public var headers: HTTPFields
    public var body: Body
    /// The application's rate-limit policies this request took a token
    /// from (`per-user`, …): their fields are written with the server's.
    public var rateLimits: [RateLimitState] = []

    public init(status: HTTPStatus, headers: HTTPFields = HTTPFields(), body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response with `application/json; charset=utf-8`.
    public static func json(_ status: HTTPStatus = .ok, _ bytes: [UInt8], headers: HTTPFields = HTTPFields()) -> HTTPResponse {
        var fields = headers.isEmpty ? jsonFields : headers
        if !headers.isEmpty { fields.set("Content-Type", "application/json; charset=utf-8") }
        return HTTPResponse(status: status, headers: fields, body: .bytes(bytes))
    }

    /// Shared by every JSON response without fields of its own, so none
    /// allocates the one-field list anew.
    private static let jsonFields: HTTPFields = ["Content-Type": "application/json; charset=utf-8"]

    public static func json(_ status: HTTPStatus = .ok, _ text: String, headers: HTTPFields = HTTPFields()) -> HTTPResponse {
        json(status, Array(text.utf8), headers: headers)
    }
}

/// A problem-details response (RFC 9457) carrying a stable machine-readable
/// `code`: thrown by a handler as it is, or what an `HTTPResponseError`
/// renders itself as.
public struct HTTPError: Error, Sendable {
    public var status: HTTPStatus
    public var code: String
    public var detail: String
    public var headers: HTTPFields
    /// Extra members of the problem object (for example a validation
    /// `errors` array), already encoded as JSON values, keyed by member name.
    public var extensions: [(String, String)]

    public init(_ status: HTTPStatus, code: String, detail: String,
                headers: HTTPFields = HTTPFields(), extensions: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
        self.extensions = extensions
    }
}

/// Why a request could not be parsed. Every parse error is answered with
/// `status` and the connection is closed afterwards: once framing is in doubt
/// the next byte on the wire cannot be trusted to start a request.
struct HTTPParseError: Error, Equatable {
    let status: HTTPStatus
    let code: String
    let detail: String

    static func badRequest(_ detail: String, code: String = "bad_request") -> HTTPParseError {
        HTTPParseError(status: .badRequest, code: code, detail: detail)
    }
}

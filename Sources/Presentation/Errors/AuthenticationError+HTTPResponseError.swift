import Domain
import HTTPServer

/// A refused credential is a 401 with its `WWW-Authenticate` challenge (a
/// ticket stands in for the token, so RFC 6750 3.1's error names the
/// credential's fault); a throttled sign-in 429
/// with `Retry-After`.
extension AuthenticationError: HTTPResponseError {
    public var httpError: HTTPError? {
        switch self {
        case .invalidCredentials, .invalidToken, .invalidTicket:
            var unauthorized = BearerToken.unauthorized(message, error: self == .invalidCredentials ? nil : "invalid_token")
            unauthorized.code = code
            return unauthorized
        case .tooManyAttempts(let seconds):
            return HTTPError(.tooManyRequests, code: code, detail: message, headers: ["Retry-After": String(seconds)])
        }
    }
}

extension AccessDenied: HTTPResponseError {
    public var httpError: HTTPError? { HTTPError(.forbidden, code: "forbidden", detail: reason) }
}

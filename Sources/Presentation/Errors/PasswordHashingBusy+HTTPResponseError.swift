import Domain
import HTTPServer

/// 503 with `Retry-After`: the hashing queue is full, nothing was done.
extension PasswordHashingBusy: HTTPResponseError {
    public var httpError: HTTPError? {
        HTTPError(.serviceUnavailable, code: "password_hashing_busy",
                  detail: "Too many password checks are waiting; nothing was done. Retry in \(retryAfterSeconds) s.",
                  headers: ["Retry-After": String(retryAfterSeconds)])
    }
}

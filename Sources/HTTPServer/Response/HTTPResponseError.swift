/// An error that knows how it is answered: whatever a handler throws that
/// conforms becomes its problem-details response (RFC 9457), so each
/// feature's errors render themselves and nothing lists them all. Any other
/// error is a 500 `internal_error`, and is logged.
public protocol HTTPResponseError: Error {
    /// The problem to answer with; nil when this value is a fault of the
    /// server after all (a 500, logged).
    var httpError: HTTPError? { get }
}

extension HTTPError: HTTPResponseError {
    public var httpError: HTTPError? { self }
}

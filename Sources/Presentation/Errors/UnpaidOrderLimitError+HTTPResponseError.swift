import Domain
import HTTPServer

/// A checkout beyond what one customer may hold unpaid: 409, the state of
/// their orders (not the request) is what stands in the way.
extension UnpaidOrderLimitError: HTTPResponseError {
    public var httpError: HTTPError? { HTTPError(.conflict, code: code, detail: message) }
}

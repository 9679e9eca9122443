import Domain
import HTTPServer

/// Maps payment refusals onto problem responses: a bad signature is the
/// sender's error (400; providers retry it, and a forger learns only that
/// it failed), payments without a secret are 503 (the server, not the
/// request, is at fault), an amount mismatch 422, a change the payment's
/// status refuses 409.
enum PaymentProblem {
    static func httpError(for error: PaymentError) -> HTTPError {
        let status: HTTPStatus = switch error {
        case .invalidSignature: .badRequest
        case .notConfigured: .serviceUnavailable
        case .amountMismatch: .unprocessableContent
        case .illegalTransition: .conflict
        }
        return HTTPError(status, code: error.code, detail: error.message)
    }
}

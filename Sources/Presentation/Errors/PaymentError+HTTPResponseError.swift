import Domain
import HTTPServer

/// A payment refusal's answer: a bad signature is the sender's error (400;
/// providers retry it, and a forger learns only that it failed), payments
/// without a secret are 503 (the server, not the request, is at fault), an
/// amount mismatch or a refund beyond what was paid 422, a change the
/// payment's status refuses (a ship unpaid, a cancel of a shipping order) 409.
extension PaymentError: HTTPResponseError {
    public var httpError: HTTPError? {
        let status: HTTPStatus = switch self {
        case .invalidSignature: .badRequest
        case .notConfigured: .serviceUnavailable
        case .amountMismatch, .refundExceedsPaid: .unprocessableContent
        case .illegalTransition, .orderNotPaid, .orderShipped: .conflict
        }
        return HTTPError(status, code: code, detail: message)
    }
}

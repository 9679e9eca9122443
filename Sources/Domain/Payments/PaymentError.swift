/// Refusals particular to payments, each with a stable problem `code`.
/// Unknown payments are `EntityError.notFound(entity: "payment", …)`
/// (`payment_not_found`).
public enum PaymentError: Refusal, Hashable {
    /// The webhook's `Axiom-Signature` is missing, malformed, does not match
    /// the body, or its `t` is outside the tolerance (400).
    case invalidSignature(String)
    /// No `payment_webhook_secret` is configured (503).
    case notConfigured
    /// The event's amount or currency differs from the payment's (422).
    case amountMismatch(expected: Money, got: Money)
    /// The change cannot apply to the payment as it is now (409).
    case illegalTransition(PaymentID, from: PaymentStatus, to: PaymentStatus)
    /// An admin's refund would take the refunds beyond what was paid (422).
    case refundExceedsPaid(PaymentID, refundable: Money)
    /// The order cannot ship: its payment is not paid, or all of it was
    /// given back (409).
    case orderNotPaid(PaymentID, status: PaymentStatus)
    /// The order cannot be cancelled: it is shipping (409).
    case orderShipped(PaymentID)

    public var code: String {
        switch self {
        case .invalidSignature: "invalid_signature"
        case .notConfigured: "payments_not_configured"
        case .amountMismatch: "amount_mismatch"
        case .illegalTransition: "illegal_payment_transition"
        case .refundExceedsPaid: "refund_exceeds_paid"
        case .orderNotPaid: "order_not_paid"
        case .orderShipped: "order_shipped"
        }
    }

    /// A bad signature is the sender's error (providers retry it, and a
    /// forger learns only that it failed); payments without a secret are the
    /// server's state, not the request's.
    public var category: RefusalCategory {
        switch self {
        case .invalidSignature: .badRequest
        case .notConfigured: .unavailable
        case .amountMismatch, .refundExceedsPaid: .invalid
        case .illegalTransition, .orderNotPaid, .orderShipped: .conflict
        }
    }

    public var message: String {
        switch self {
        case .invalidSignature(let why): "the Axiom-Signature header is not valid: \(why)"
        case .notConfigured: "payment notifications are not configured on this server"
        case .amountMismatch(let expected, let got):
            "the payment is \(expected.decimalText), the event says \(got.decimalText)"
        case .illegalTransition(let id, let from, let to):
            "payment \(id) cannot go from \(from.rawValue) to \(to.rawValue)"
        case .refundExceedsPaid(let id, let refundable):
            "payment \(id) has \(refundable.decimalText) left to refund"
        case .orderNotPaid(let id, let status):
            "the order cannot ship: its payment \(id) holds no money for it (status \(status.rawValue))"
        case .orderShipped(let id):
            "the order of payment \(id) is shipping and can no longer be cancelled"
        }
    }
}

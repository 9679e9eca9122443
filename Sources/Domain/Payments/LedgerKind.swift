/// What moved money, and which way: charges and manual payments bring it
/// in, refunds and chargebacks send it back.
public enum LedgerKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// The provider took the customer's money (`payment.succeeded`).
    case charge
    /// An admin recorded money received outside the provider.
    case manualPayment = "manual_payment"
    /// The provider gave money back (`refund.succeeded`).
    case refund
    /// An admin recorded money given back outside the provider.
    case manualRefund = "manual_refund"
    /// The customer's bank took the money back (`chargeback.created`).
    case chargeback

    /// Money in (paid) rather than out (refunded).
    public var isIncoming: Bool { self == .charge || self == .manualPayment }
}

/// How a payment is made: through the provider (webhooks), by bank
/// transfer (chosen at checkout; waits longer, recorded by an admin), or
/// `manual`: a provider payment whose money an admin recorded as received
/// outside it.
public enum PaymentMethod: String, Hashable, Sendable, Codable, CaseIterable {
    case provider
    case manual
    case bankTransfer = "bank_transfer"

    /// Paid outside the provider, recorded by an admin: such a payment
    /// waits `manual_payment_timeout` days, not `payment_timeout` seconds.
    public var isManual: Bool { self != .provider }
}

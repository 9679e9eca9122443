/// How a payment was made: through the provider (webhooks) or recorded by
/// an admin for money received outside it (a bank transfer).
public enum PaymentMethod: String, Hashable, Sendable, Codable, CaseIterable {
    case provider
    case manual
}

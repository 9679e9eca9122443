import FoundationEssentials

/// Identity of a payment: the provider's payment intent for one order.
public struct PaymentID: UUIDIdentifier {
    public let rawValue: UUID

    public init(_ rawValue: UUID) {
        self.rawValue = rawValue
    }
}

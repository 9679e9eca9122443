import FoundationEssentials

/// Identity of one checkout attempt. An order records the checkout that
/// created it, so a checkout interrupted by a crash can be reconciled at
/// start-up and a retried checkout finds its first result.
public struct CheckoutID: UUIDIdentifier {
    public let rawValue: UUID

    public init(_ rawValue: UUID) {
        self.rawValue = rawValue
    }
}

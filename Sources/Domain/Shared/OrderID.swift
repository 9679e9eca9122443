import FoundationEssentials

/// Identity of an order.
public struct OrderID: UUIDIdentifier {
    public let rawValue: UUID

    public init(_ rawValue: UUID) {
        self.rawValue = rawValue
    }
}

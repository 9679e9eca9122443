import FoundationEssentials

/// Identity of a catalogue product. Carts and orders refer to a product by
/// this value, never by holding a `Product`.
public struct ProductID: UUIDIdentifier {
    public let rawValue: UUID

    public init(_ rawValue: UUID) {
        self.rawValue = rawValue
    }
}

/// Who asks for an order status change; the transition table depends on it.
public enum OrderActor: String, Hashable, Sendable, Codable, CaseIterable {
    /// The order's owner.
    case customer
    /// Staff fulfilling orders.
    case admin
    /// The service itself (checkout confirming an order, start-up
    /// reconciliation cancelling one whose checkout never finished).
    case system
}

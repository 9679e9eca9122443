/// Refusals particular to orders and checkout.
public enum OrderError: Refusal, Hashable {
    /// The order status change is not in the transition table.
    case illegalTransition(from: OrderStatus, to: OrderStatus)
    /// The `Idempotency-Key` was used for a request with other parameters
    /// (another cart) while it is kept: it answers only its first request.
    case idempotencyKeyReused
    /// The order has no shipping address yet, so it cannot ship.
    case shippingAddressRequired(OrderID)
    /// The order's address can no longer change: it shipped or was cancelled.
    case shippingAddressLocked(OrderID, status: OrderStatus)

    public var code: String {
        switch self {
        case .illegalTransition: "illegal_transition"
        case .idempotencyKeyReused: "idempotency_key_reused"
        case .shippingAddressRequired: "shipping_address_required"
        case .shippingAddressLocked: "shipping_address_locked"
        }
    }

    public var category: RefusalCategory {
        switch self {
        case .idempotencyKeyReused: .invalid
        case .illegalTransition, .shippingAddressRequired, .shippingAddressLocked: .conflict
        }
    }

    public var message: String {
        switch self {
        case .illegalTransition(let from, let to):
            "an order cannot go from \(from.rawValue) to \(to.rawValue)"
        case .idempotencyKeyReused:
            "this Idempotency-Key was used for another cart; use a new key for a new checkout"
        case .shippingAddressRequired(let id):
            "order \(id) has no shipping address; PUT /orders/\(id)/shipping_address first"
        case .shippingAddressLocked(let id, let status):
            "order \(id) is \(status.rawValue); its shipping address can no longer change"
        }
    }
}

/// Who moved an order and why, kept with each status change in the
/// order's history. The actor is who caused the change (the provider's
/// event that paid it, the admin who recorded a transfer), not the role
/// the transition table checks (`OrderActor`), which for those is the
/// system following the payment.
public struct OrderChangeCause: Hashable, Sendable {
    public enum Actor: Hashable, Sendable {
        case customer(UserID)
        case admin(UserID)
        case provider
        case system

        /// The stored and published name: `customer`, `admin`, `provider` or `system`.
        public var kind: String {
            switch self {
            case .customer: "customer"
            case .admin: "admin"
            case .provider: "provider"
            case .system: "system"
            }
        }

        /// The customer's or admin's id; nil for the others.
        public var userID: UserID? {
            switch self {
            case .customer(let id), .admin(let id): id
            case .provider, .system: nil
            }
        }

        /// Read back from `kind` and `userID`; nil for anything else.
        public init?(kind: String, userID: UserID?) {
            switch (kind, userID) {
            case ("customer", let id?): self = .customer(id)
            case ("admin", let id?): self = .admin(id)
            case ("provider", nil): self = .provider
            case ("system", nil): self = .system
            default: return nil
            }
        }
    }

    public let actor: Actor
    /// A short machine-readable reason (`checkout`, `payment.succeeded`,
    /// `manual_payment`, `cancel_requested`, `payment_expired`, …).
    public let reason: String

    public init(_ actor: Actor, reason: String) {
        self.actor = actor
        self.reason = reason
    }

    /// The caller asked, as the order's owner or as an admin.
    public static func requested(by caller: UserID, owner: UserID, reason: String) -> OrderChangeCause {
        OrderChangeCause(caller == owner ? .customer(caller) : .admin(caller), reason: reason)
    }
}

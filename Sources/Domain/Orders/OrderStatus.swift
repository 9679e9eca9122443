/// Where an order is in its life, with the only transitions allowed:
///
/// | from      | to        | by                       |
/// |-----------|-----------|--------------------------|
/// | pending   | confirmed | system (checkout)        |
/// | pending   | cancelled | customer, admin, system  |
/// | confirmed | cancelled | customer, admin          |
/// | confirmed | shipped   | admin                    |
/// | shipped   | delivered | admin                    |
///
/// Everything else, including staying in the same status, is
/// `OrderError.illegalTransition` (code `illegal_transition`).
/// `delivered` and `cancelled` are final.
public enum OrderStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case pending
    case confirmed
    case shipped
    case delivered
    case cancelled

    /// Whether `actor` may move an order from `self` to `next`.
    public func canTransition(to next: OrderStatus, by actor: OrderActor) -> Bool {
        switch (self, next) {
        case (.pending, .confirmed): actor == .system
        case (.pending, .cancelled): true
        case (.confirmed, .cancelled): actor == .customer || actor == .admin
        case (.confirmed, .shipped), (.shipped, .delivered): actor == .admin
        default: false
        }
    }

    /// `next`, or `illegalTransition(from: self, to: next)`.
    public func transition(to next: OrderStatus, by actor: OrderActor) throws -> OrderStatus {
        guard canTransition(to: next, by: actor) else {
            throw OrderError.illegalTransition(from: self, to: next)
        }
        return next
    }

    /// A customer may still cancel (stock then returns to the catalogue).
    public var isCancellable: Bool { self == .pending || self == .confirmed }
}

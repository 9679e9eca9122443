/// The owned state of `OrderClient`: every order by id, each user's orders,
/// and the checkout index (one order per checkout).
public struct OrderState: Sendable, Equatable {
    public private(set) var orders: [OrderID: Order] = [:]
    public private(set) var idsByUser: [UserID: Set<OrderID>] = [:]
    public private(set) var idsByCheckout: [CheckoutID: OrderID] = [:]

    public init() {}

    /// A state holding `orders` (loaded from storage); the same checks as
    /// inserting them one by one.
    public init(orders: some Sequence<Order>) throws(DomainError) {
        for order in orders { try insert(order) }
    }

    public var count: Int { orders.count }

    public func order(_ id: OrderID) -> Order? { orders[id] }

    /// The order a checkout created, if it got that far.
    public func order(checkout: CheckoutID) -> Order? { idsByCheckout[checkout].flatMap { orders[$0] } }

    /// A user's orders, newest first (ties by id, descending), so a cursor
    /// can resume after any order.
    public func orders(for userID: UserID) -> [Order] {
        (idsByUser[userID] ?? []).compactMap { orders[$0] }.sorted(by: OrderState.newestFirst)
    }

    public static func newestFirst(_ a: Order, _ b: Order) -> Bool {
        (a.createdAt, a.id.description) > (b.createdAt, b.id.description)
    }

    /// Adds a new, valid order. `duplicate(id)` / `duplicate(checkout)`
    /// when taken.
    public mutating func insert(_ order: Order) throws(DomainError) {
        _ = try order.validated()
        if orders[order.id] != nil { throw DomainError.duplicate(field: "id", value: order.id.description) }
        if let checkout = order.checkoutID {
            if idsByCheckout[checkout] != nil {
                throw DomainError.duplicate(field: "checkout", value: checkout.description)
            }
            idsByCheckout[checkout] = order.id
        }
        orders[order.id] = order
        idsByUser[order.userID, default: []].insert(order.id)
    }

    /// Replaces an order with a new version of it. Only the status may
    /// change, and only along the transition table (the caller's
    /// `transitioned(to:by:)` checked who may); anything else is refused.
    public mutating func update(_ order: Order) throws(DomainError) {
        guard let old = orders[order.id] else { throw DomainError.notFound(entity: "order", id: order.id.description) }
        let sameContent = old.userID == order.userID && old.lines == order.lines && old.total == order.total
            && old.createdAt == order.createdAt && old.checkoutID == order.checkoutID
        guard sameContent else {
            throw DomainError.validation(ValidationError([FieldError(
                field: "items", code: .inconsistent, message: "only an order's status can change")]))
        }
        guard old.status == order.status || OrderActor.allCases.contains(where: {
            old.status.canTransition(to: order.status, by: $0)
        }) else {
            throw DomainError.illegalTransition(from: old.status, to: order.status)
        }
        orders[order.id] = order
    }
}

/// How much one customer may hold unpaid at once: orders waiting for their
/// payment, and the units those orders keep from other buyers. Without a
/// bound, three bank-transfer checkouts could hold a product's whole stock
/// for the week their payments wait (OWASP API6, unrestricted access to a
/// sensitive business flow). 0 is no bound.
public struct UnpaidOrderLimits: Sendable, Hashable {
    public let orders: Int
    public let units: Int

    public init(orders: Int, units: Int) {
        self.orders = orders
        self.units = units
    }

    public static let unbounded = UnpaidOrderLimits(orders: 0, units: 0)

    public var isBounded: Bool { orders > 0 || units > 0 }

    /// Refuses an order of `adding` units on top of `pending` unpaid
    /// orders that hold `held` units.
    public func check(pending: Int, held: Int, adding units: Int) throws(UnpaidOrderLimitError) {
        if orders > 0 && pending >= orders { throw .tooManyOrders(limit: orders) }
        if self.units > 0 && held + units > self.units { throw .tooManyUnits(limit: self.units, held: held) }
    }
}

/// A checkout refused by `UnpaidOrderLimits` (409): the customer pays or
/// cancels an order first.
public enum UnpaidOrderLimitError: Refusal, Hashable {
    case tooManyOrders(limit: Int)
    case tooManyUnits(limit: Int, held: Int)

    public var code: String {
        switch self {
        case .tooManyOrders: "too_many_unpaid_orders"
        case .tooManyUnits: "too_many_unpaid_units"
        }
    }

    public var category: RefusalCategory { .conflict }

    public var message: String {
        switch self {
        case .tooManyOrders(let limit):
            "you have \(limit) \(limit == 1 ? "order" : "orders") waiting for payment; pay or cancel one first"
        case .tooManyUnits(let limit, let held):
            "orders waiting for payment may hold \(limit) units in all and yours hold \(held); "
                + "pay or cancel one, or order fewer"
        }
    }
}

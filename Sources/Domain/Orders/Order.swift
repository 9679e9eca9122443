/// A placed order. Refers to its user and products by id only; lines carry
/// the names and prices frozen at checkout. Immutable: a status change
/// returns a new order and follows the `OrderStatus` transition table.
/// An order may ship only with a `shippingAddress`, given at checkout or
/// added later while it has not shipped or been cancelled.
/// Encodes as `{id, user_id, status, items, total, created_at, checkout_id,
/// shipping_address}` (the last two left out when absent).
public struct Order: Hashable, Sendable, Codable, Identifiable, Validatable {
    public let id: OrderID
    public let userID: UserID
    public let status: OrderStatus
    public let lines: [OrderLine]
    public let total: Money
    public let createdAt: Timestamp
    /// The checkout that created the order, for idempotent retries and
    /// crash reconciliation.
    public let checkoutID: CheckoutID?
    public let shippingAddress: ShippingAddress?

    /// Memberwise, as stored; does not validate.
    public init(id: OrderID, userID: UserID, status: OrderStatus, lines: [OrderLine], total: Money,
                createdAt: Timestamp, checkoutID: CheckoutID? = nil, shippingAddress: ShippingAddress? = nil) {
        self.id = id
        self.userID = userID
        self.status = status
        self.lines = lines
        self.total = total
        self.createdAt = createdAt
        self.checkoutID = checkoutID
        self.shippingAddress = shippingAddress
    }

    /// A new `pending` order from a priced cart: `emptyCart` for no lines,
    /// otherwise the lines are frozen, the total taken from the cart, and the
    /// whole order validated.
    public static func place(id: OrderID, userID: UserID, cart: PricedCart, createdAt: Timestamp,
                             checkoutID: CheckoutID? = nil,
                             shippingAddress: ShippingAddress? = nil) throws -> Order {
        guard !cart.isEmpty else { throw CartError.emptyCart }
        return try Order(id: id, userID: userID, status: .pending, lines: cart.lines.map(OrderLine.init),
                         total: cart.total, createdAt: createdAt, checkoutID: checkoutID,
                         shippingAddress: shippingAddress).validated()
    }

    enum CodingKeys: String, CodingKey {
        case id
        case userID = "user_id"
        case status
        case lines = "items"
        case total
        case createdAt = "created_at"
        case checkoutID = "checkout_id"
        case shippingAddress = "shipping_address"
    }

    /// At least one line, at most `Cart.maxLines`, one per product; every
    /// line valid (fields as `items[i].…`); one currency throughout; `total`
    /// exactly the sum of the line totals.
    public func validate() -> ValidationError? {
        var errors = ValidationError()
        if lines.isEmpty {
            errors.add("items", .required, "an order has at least one line")
        } else if lines.count > Cart.maxLines {
            errors.add("items", .tooLong, "an order has at most \(Cart.maxLines) lines")
        }
        var seen = Set<ProductID>()
        for (index, line) in lines.enumerated() {
            errors.merge(line.validate(), prefix: "items[\(index)]")
            if !seen.insert(line.productID).inserted {
                errors.add("items[\(index)].product_id", .inconsistent, "product \(line.productID) appears twice")
            }
            if line.unitPrice.currency != total.currency || line.lineTotal.currency != total.currency {
                errors.add("items[\(index)].unit_price.currency", .inconsistent, "every line must be in \(total.currency)")
            }
        }
        if let sum = try? Money.sum(lines.map(\.lineTotal), currency: total.currency) {
            if sum != total { errors.add("total", .inconsistent, "total must be the sum of the line totals") }
        } else if !lines.isEmpty {
            errors.add("total", .outOfRange, "the line totals cannot be summed")
        }
        errors.merge(shippingAddress?.validate(), prefix: "shipping_address")
        return errors.orNil
    }

    // MARK: - Questions

    public var isCancellable: Bool { status.isCancellable }

    // MARK: - Changes

    /// The order in `next`, if `actor` may make that move from `status`;
    /// otherwise `illegalTransition`.
    /// Shipping also needs a shipping address (`shippingAddressRequired`).
    public func transitioned(to next: OrderStatus, by actor: OrderActor) throws -> Order {
        let status = try status.transition(to: next, by: actor)
        if status == .shipped && shippingAddress == nil { throw OrderError.shippingAddressRequired(id) }
        return Order(id: id, userID: userID, status: status, lines: lines, total: total, createdAt: createdAt,
                     checkoutID: checkoutID, shippingAddress: shippingAddress)
    }

    /// Whether the shipping address may still be given or replaced: not
    /// once the parcel left or the order was cancelled.
    public var acceptsShippingAddress: Bool { status == .pending || status == .confirmed }

    /// The order with `address` (validated, fields as
    /// `shipping_address.…`), or `shippingAddressLocked`.
    public func addressed(to address: ShippingAddress) throws -> Order {
        guard acceptsShippingAddress else { throw OrderError.shippingAddressLocked(id, status: status) }
        return try Order(id: id, userID: userID, status: status, lines: lines, total: total, createdAt: createdAt,
                         checkoutID: checkoutID, shippingAddress: address).validated()
    }

    /// The order without its shipping address: its customer's account was
    /// deleted, and the address is theirs. Lines, amounts and status stay.
    public func withoutShippingAddress() -> Order {
        Order(id: id, userID: userID, status: status, lines: lines, total: total, createdAt: createdAt,
              checkoutID: checkoutID, shippingAddress: nil)
    }

    /// Checkout finished: pending → confirmed (system).
    public func confirmed() throws -> Order { try transitioned(to: .confirmed, by: .system) }

    public func cancelled(by actor: OrderActor) throws -> Order {
        try transitioned(to: .cancelled, by: actor)
    }

    public func shipped() throws -> Order { try transitioned(to: .shipped, by: .admin) }

    public func delivered() throws -> Order { try transitioned(to: .delivered, by: .admin) }
}

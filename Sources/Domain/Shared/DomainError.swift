/// Every way a domain rule can refuse something. Each case has a stable
/// machine `code` (the API's problem `code`) and a `category` the HTTP layer
/// maps to a status: `invalid` → 422, `conflict` → 409, `notFound` → 404.
public enum DomainError: Error, Hashable, Sendable, CustomStringConvertible {
    /// One or more fields are invalid; every failing field is listed.
    case validation(ValidationError)
    /// A reservation asked for more than is in stock.
    case insufficientStock(productID: ProductID, requested: Int, available: Int)
    /// The product is deactivated and cannot be reserved or ordered.
    case productInactive(ProductID)
    /// The order status change is not in the transition table.
    case illegalTransition(from: OrderStatus, to: OrderStatus)
    /// Checkout of a cart without lines.
    case emptyCart
    /// Money of two currencies was combined.
    case currencyMismatch(Currency, Currency)
    /// An amount or quantity left its representable range.
    case overflow
    /// A unique value (email, SKU, checkout) is already taken.
    case duplicate(field: String, value: String)
    /// No such entity (`user`, `product`, `order`, …) with that id.
    case notFound(entity: String, id: String)
    /// A suspended user tried something only an active user may do.
    case userSuspended(UserID)
    /// The change would leave no active admin (demoting or suspending the
    /// last one): nobody could administer the shop afterwards.
    case lastAdmin(UserID)
    /// The caller made the change conditional on the state it last saw
    /// (`If-Match`), and the state is another now: nothing was changed.
    case preconditionFailed(entity: String)
    /// Stock coming back (a release or a return) would take the product past
    /// its maximum stock; nothing was returned (the units are not dropped).
    case stockLimitExceeded(productID: ProductID, returned: Int, stock: Int)
    /// The `Idempotency-Key` was used for a request with other parameters
    /// (another cart) while it is kept: it answers only its first request.
    case idempotencyKeyReused
    /// The order has no shipping address yet, so it cannot ship.
    case shippingAddressRequired(OrderID)
    /// The order's address can no longer change: it shipped or was cancelled.
    case shippingAddressLocked(OrderID, status: OrderStatus)

    public enum Category: String, Sendable {
        case invalid, conflict, notFound = "not_found", preconditionFailed = "precondition_failed"
    }

    public var code: String {
        switch self {
        case .validation: "validation_failed"
        case .insufficientStock: "insufficient_stock"
        case .productInactive: "product_inactive"
        case .illegalTransition: "illegal_transition"
        case .emptyCart: "empty_cart"
        case .currencyMismatch: "currency_mismatch"
        case .overflow: "overflow"
        case .duplicate(let field, _): "duplicate_\(field)"
        case .notFound(let entity, _): "\(entity)_not_found"
        case .userSuspended: "user_suspended"
        case .lastAdmin: "last_admin"
        case .preconditionFailed: "precondition_failed"
        case .stockLimitExceeded: "stock_limit_exceeded"
        case .idempotencyKeyReused: "idempotency_key_reused"
        case .shippingAddressRequired: "shipping_address_required"
        case .shippingAddressLocked: "shipping_address_locked"
        }
    }

    public var category: Category {
        switch self {
        case .validation, .currencyMismatch, .overflow, .idempotencyKeyReused: .invalid
        case .insufficientStock, .productInactive, .illegalTransition, .emptyCart, .duplicate, .userSuspended,
             .lastAdmin, .stockLimitExceeded, .shippingAddressRequired, .shippingAddressLocked: .conflict
        case .notFound: .notFound
        case .preconditionFailed: .preconditionFailed
        }
    }

    /// A human message; safe to show to the caller (no secrets, no other
    /// user's data beyond the ids the caller supplied).
    public var message: String {
        switch self {
        case .validation(let error):
            "\(Counted.text(error.errors.count, "field")) failed validation: \(error.fields.joined(separator: ", "))"
        case .insufficientStock(let id, let requested, let available):
            "product \(id) has \(available) in stock, \(requested) requested"
        case .productInactive(let id):
            "product \(id) is not available"
        case .illegalTransition(let from, let to):
            "an order cannot go from \(from.rawValue) to \(to.rawValue)"
        case .emptyCart:
            "the cart is empty"
        case .currencyMismatch(let a, let b):
            "cannot combine \(a.code) with \(b.code)"
        case .overflow:
            "amount out of range"
        case .duplicate(let field, _):
            "that \(field) is already taken"
        case .notFound(let entity, let id):
            "no \(entity) with id \(id)"
        case .userSuspended:
            "the account is suspended"
        case .lastAdmin(let id):
            "user \(id) is the last active admin and cannot be demoted or suspended"
        case .preconditionFailed(let entity):
            "the \(entity) changed since the ETag in If-Match was issued; read it again and retry"
        case .stockLimitExceeded(let id, let returned, let stock):
            "returning \(returned) to product \(id) (stock \(stock)) would pass the maximum stock; nothing was returned"
        case .idempotencyKeyReused:
            "this Idempotency-Key was used for another cart; use a new key for a new checkout"
        case .shippingAddressRequired(let id):
            "order \(id) has no shipping address; PUT /orders/\(id)/shipping_address first"
        case .shippingAddressLocked(let id, let status):
            "order \(id) is \(status.rawValue); its shipping address can no longer change"
        }
    }

    public var description: String { "\(code): \(message)" }
}

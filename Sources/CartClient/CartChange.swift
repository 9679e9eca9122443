import Domain

/// One change of a user's cart, as `CartWrite` makes it.
enum CartChange: Sendable {
    /// With `unchangedFrom`, the change is made only while the user's cart
    /// is still that cart (`precondition_failed` otherwise: `If-Match`).
    case setQuantity(UserID, ProductID, Int, unchangedFrom: Cart?)
    case remove(UserID, ProductID, unchangedFrom: Cart?)
    case clear(UserID)
    /// Takes a finished checkout's ordered lines out of the user's cart
    /// (`Cart.removingOrdered`: what was changed since the checkout read the
    /// cart stays), once per checkout: the checkout id is recorded in the
    /// same transaction, so a repeat (start-up reconciliation after a crash)
    /// leaves a cart refilled since untouched.
    case clearAfterCheckout(UserID, CheckoutID, ordered: [CartLine])

    var user: UserID {
        switch self {
        case .setQuantity(let user, _, _, _), .remove(let user, _, _), .clear(let user), .clearAfterCheckout(let user, _, _): user
        }
    }

    var unchangedFrom: Cart? {
        switch self {
        case .setQuantity(_, _, _, let cart), .remove(_, _, let cart): cart
        case .clear, .clearAfterCheckout: nil
        }
    }
}

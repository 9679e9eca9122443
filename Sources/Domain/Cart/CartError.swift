/// Refusals particular to a cart.
public enum CartError: Refusal, Hashable {
    /// Checkout of a cart without lines.
    case emptyCart

    public var code: String {
        switch self {
        case .emptyCart: "empty_cart"
        }
    }

    public var category: RefusalCategory { .conflict }

    public var message: String {
        switch self {
        case .emptyCart: "the cart is empty"
        }
    }
}

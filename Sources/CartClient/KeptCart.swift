import Axiom
import Domain

/// A cart in the working set with the `cart_versions` version it was read
/// or written at (0 for a user whose cart was never written). Every cart
/// write bumps that version first, in its own transaction, so a write that
/// bumps it to exactly `version + 1` knows that no other write (another
/// replica's included) came between, and starts from this cart instead of
/// reading the lines again (`CartWrite`).
typealias KeptCart = Versioned<UserID, Cart>

extension Versioned where Key == UserID, Value == Cart {
    var cart: Cart { value }
}

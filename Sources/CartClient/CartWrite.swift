import Capabilities
import Domain

/// One cart change, made inside its write transaction from the cart in
/// storage: the user's `cart_versions` row is bumped first (on PostgreSQL
/// the upsert locks it until the commit, so a second replica's write of the
/// same cart waits and then reads this one's lines; on SQLite the one
/// writer already excludes it), then the lines are read (unless the bump
/// proves the working set's copy current: `KeptCart`), `If-Match` is
/// compared with them, and the change is written as just that change: one
/// statement whatever the cart's size (rewriting every line made a write
/// cost as much as the cart was long).
///
/// A change computed from the process's working set alone would be right
/// within one process (its `KeyedTurns`), but with two replicas on one
/// database each would answer with a cart missing the other's lines, and
/// compare `If-Match` with a cart the database no longer holds. The version
/// tells the two cases apart.
enum CartWrite {
    /// The cart after `change`, whether it changed storage (a checkout's
    /// clear that already ran changes nothing) and the cart's version now.
    /// `kept`: the working set's copy; when the bump shows no write came
    /// after it, it is the stored cart and the lines are not read (a read
    /// less on the single writer, for every cart write).
    static func run(_ user: UserID, unchangedFrom: Cart?, _ handle: any StorageHandle, kept: KeptCart?,
                    _ change: (Cart, any StorageHandle) throws -> (Cart, Bool)) throws -> (Cart, Bool, Int64) {
        let version: Int64 = try handle.queryOne("""
            INSERT INTO cart_versions(user_id, version) VALUES(?, 1)
            ON CONFLICT(user_id) DO UPDATE SET version = cart_versions.version + 1
            RETURNING version
            """, user.description)?.get("version") ?? 0
        let cart: Cart
        if let kept, kept.version + 1 == version {
            cart = kept.cart
        } else {
            cart = try Cart(userID: user, lines: try CartStore.lines(handle, user: user)).validated()
        }
        // If-Match, under the lock: no other change of this cart can commit
        // between this comparison and the change, on any replica, so of two
        // requests that saw the same cart one wins and one is refused.
        if let unchangedFrom, cart != unchangedFrom {
            throw EntityError.preconditionFailed(entity: "cart")
        }
        let (after, applied) = try change(cart, handle)
        return (after, applied, version)
    }

    static func setQuantity(_ quantity: Int, of product: ProductID, in cart: Cart,
                            _ handle: any StorageHandle) throws -> Cart {
        let changed = try cart.settingQuantity(quantity, for: product).validated()
        let owner = cart.userID.description
        if cart.quantity(of: product) == nil {
            try addLine(handle, user: owner, product: product, quantity: quantity)
        } else {
            try handle.enqueue("UPDATE cart_lines SET quantity = ? WHERE user_id = ? AND product_id = ?",
                               quantity, owner, product.description)
        }
        return changed
    }

    static func remove(_ product: ProductID, from cart: Cart, _ handle: any StorageHandle) throws -> Cart {
        try handle.enqueue("DELETE FROM cart_lines WHERE user_id = ? AND product_id = ?",
                           cart.userID.description, product.description)
        return try cart.removing(product).validated()
    }

    static func clear(_ cart: Cart, _ handle: any StorageHandle) throws -> Cart {
        try handle.enqueue("DELETE FROM cart_lines WHERE user_id = ?", cart.userID.description)
        return try cart.cleared().validated()
    }

    /// Once per checkout: the record is written with the clear.
    static func clearAfterCheckout(_ checkoutID: CheckoutID, ordered: [CartLine], from cart: Cart,
                                   _ handle: any StorageHandle) throws -> (Cart, Bool) {
        let owner = cart.userID.description
        guard try CartStore.claimClear(handle, checkoutID, user: owner) else { return (cart, false) }
        let remaining = cart.removingOrdered(ordered)
        let kept = Set(remaining.lines.map(\.productID))
        for line in cart.lines where !kept.contains(line.productID) {
            try handle.enqueue("DELETE FROM cart_lines WHERE user_id = ? AND product_id = ?",
                               owner, line.productID.description)
        }
        return (try remaining.validated(), true)
    }

    /// Inserts the line after the user's highest position, so the order
    /// the products were added survives removals.
    private static func addLine(_ handle: any StorageHandle, user: String, product: ProductID, quantity: Int) throws {
        try handle.enqueue("""
            INSERT INTO cart_lines(user_id, product_id, quantity, position)
            VALUES(?, ?, ?, (SELECT COALESCE(MAX(position) + 1, 0) FROM cart_lines WHERE user_id = ?))
            """, user, product.description, quantity, user)
    }
}

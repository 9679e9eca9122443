import Capabilities
import Domain

/// The carts client's reads: each a range or probe of a primary key, so
/// their cost follows one user's cart, never the table.
enum CartStore {
    /// The user's lines in the order they were added.
    static func lines(_ handle: any StorageHandle, user: UserID) throws -> [CartLine] {
        try handle.query("SELECT product_id, quantity FROM cart_lines WHERE user_id = ? ORDER BY position",
                         user.description).map { row in
            let productText: String = try row.get("product_id")
            guard let product = ProductID(productText) else {
                throw CartDataError(description: "cart line \(user)/\(productText) is not valid")
            }
            return CartLine(productID: product, quantity: try row.get("quantity"))
        }
    }

    /// The user's `cart_versions` version; 0 when the cart was never written.
    static func version(_ handle: any StorageHandle, user: UserID) throws -> Int64 {
        try handle.queryOne("SELECT version FROM cart_versions WHERE user_id = ?", user.description)?.get("version") ?? 0
    }

    /// Records the clear of this checkout's cart; false when it was
    /// recorded before (the clear already ran).
    static func claimClear(_ handle: any StorageHandle, _ checkoutID: CheckoutID, user: String) throws -> Bool {
        try !handle.query("""
            INSERT INTO cart_cleared_checkouts(checkout_id, user_id) VALUES(?, ?)
            ON CONFLICT DO NOTHING RETURNING checkout_id
            """, checkoutID.description, user).isEmpty
    }

    /// Whether `clearAfterCheckout` committed for this checkout.
    static func isCleared(_ handle: any StorageHandle, _ checkoutID: CheckoutID) throws -> Bool {
        try handle.queryOne("SELECT 1 FROM cart_cleared_checkouts WHERE checkout_id = ?", checkoutID.description) != nil
    }
}

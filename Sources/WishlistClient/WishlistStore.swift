import Capabilities
import Domain

/// The wishlist's rows: each statement a range or probe of one user's
/// primary-key prefix, so its cost follows one wishlist, never the table.
enum WishlistStore {
    static func items(_ handle: any StorageHandle, user: UserID) throws -> [ProductID] {
        try handle.query("SELECT product_id FROM wishlist_items WHERE user_id = ? ORDER BY position DESC",
                         user.description).map { row in
            let text: String = try row.get("product_id")
            guard let product = ProductID(text) else {
                throw WishlistDataError(description: "wishlist item \(user)/\(text) is not valid")
            }
            return product
        }
    }

    /// Saves `product` in the write's transaction; whether it changed a
    /// row (one saved already does not). The count and the insert share the
    /// transaction, and write transactions take turns (SQLite's one writer;
    /// on PostgreSQL the outbox lock every writing batch begins with), so
    /// two saves at once, on two replicas too, cannot pass `maxItems`
    /// together.
    static func save(_ product: ProductID, for user: UserID, _ handle: any StorageHandle) throws -> Bool {
        let owner = user.description
        if try handle.queryOne("SELECT 1 FROM wishlist_items WHERE user_id = ? AND product_id = ?",
                               owner, product.description) != nil {
            return false
        }
        let row = try handle.queryOne("""
            SELECT COUNT(*) AS saved, COALESCE(MAX(position), 0) AS newest FROM wishlist_items WHERE user_id = ?
            """, owner)
        let saved: Int64 = try row?.get("saved") ?? 0
        let newest: Int64 = try row?.get("newest") ?? 0
        guard saved < WishlistClient.maxItems else {
            throw ValidationError([FieldError(
                field: "items", code: .tooLong,
                message: "a wishlist holds at most \(WishlistClient.maxItems) products")])
        }
        _ = try handle.execute("INSERT INTO wishlist_items(user_id, product_id, position) VALUES(?, ?, ?)",
                               owner, product.description, newest + 1)
        return true
    }

    /// Takes `product` out; whether it was saved.
    static func remove(_ product: ProductID, for user: UserID, _ handle: any StorageHandle) throws -> Bool {
        try handle.execute("DELETE FROM wishlist_items WHERE user_id = ? AND product_id = ?",
                           user.description, product.description) > 0
    }

    /// Deletes every item of `user`'s list; answers whether there was one.
    static func clear(_ user: UserID, _ handle: any StorageHandle) throws -> Bool {
        try handle.execute("DELETE FROM wishlist_items WHERE user_id = ?", user.description) > 0
    }
}

/// A stored row that does not read as a wishlist item.
struct WishlistDataError: Error, CustomStringConvertible {
    let description: String
}

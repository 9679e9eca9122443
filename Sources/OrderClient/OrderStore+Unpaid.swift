import Capabilities
import Domain

/// A customer's orders waiting for payment, for `UnpaidOrderLimits`: one
/// range of the partial `orders_pending_by_user` (migration 423), as many
/// rows as the customer has pending orders.
extension OrderStore {
    static let unpaidMigrations: [Migration] = [
        Migration(version: 423, name: "pending orders by customer", sql: pendingIndex, postgresSQL: pendingIndex),
    ]

    private static let pendingIndex = "CREATE INDEX orders_pending_by_user ON orders(user_id) WHERE status = 'pending';"

    /// How many orders of `user` wait for payment and the units they hold.
    static func unpaid(_ handle: any StorageHandle, user: UserID) throws -> (orders: Int, units: Int) {
        let pending = try handle.query("SELECT document FROM orders WHERE user_id = ? AND status = 'pending'",
                                       user.description).map(decode)
        return (pending.count, pending.reduce(0) { $0 + $1.lines.reduce(0) { $0 + $1.quantity } })
    }
}

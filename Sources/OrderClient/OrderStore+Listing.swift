import Capabilities
import Domain

/// The admin's list of every customer's orders, newest first (created_at,
/// ties by id, descending), keyset paged. Each common filter reads one
/// index range, newest first, without a sort: a customer's orders
/// `orders_by_user_newest`, one status `orders_by_status_newest`, and no
/// filter or a date range only `orders_newest`; a date range bounds the
/// range of whichever index is read, and a status with a customer reads
/// one of their two ranges (the planner's choice) and checks the other.
extension OrderStore {
    static let listingMigrations: [Migration] = [
        Migration(version: 421, name: "orders listed by status and by time", sql: listingIndexes,
                  postgresSQL: listingIndexes),
    ]

    private static let listingIndexes = """
        CREATE INDEX orders_by_status_newest ON orders(status, created_at, id);
        CREATE INDEX orders_newest ON orders(created_at, id);
        """

    /// Up to `limit + 1` orders that `filter` keeps, after `position` (the
    /// created_at and id of the last order of the previous page).
    static func list(_ handle: any StorageHandle, filter: OrderFilter, after position: (Int64, String)?,
                     limit: Int) throws -> [Order] {
        var conditions: [String] = []
        var arguments: [StorageValue] = []
        if let user = filter.userID {
            conditions.append("user_id = ?")
            arguments.append(.text(user.description))
        }
        if let status = filter.status {
            conditions.append("status = ?")
            arguments.append(.text(status.rawValue))
        }
        if let from = filter.createdFrom {
            conditions.append("created_at >= ?")
            arguments.append(.integer(from.millisecondsSince1970))
        }
        if let before = filter.createdBefore {
            conditions.append("created_at < ?")
            arguments.append(.integer(before.millisecondsSince1970))
        }
        if let (createdAt, id) = position {
            conditions.append("(created_at, id) < (?, ?)")
            arguments.append(.integer(createdAt))
            arguments.append(.text(id))
        }
        let condition = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        arguments.append(.integer(Int64(limit + 1)))
        return try handle.query("SELECT document FROM orders" + condition + " ORDER BY created_at DESC, id DESC LIMIT ?",
                                arguments: arguments).map { try OrderDocument.decode($0.get("document")) }
    }

    /// Where a cursor (an order id) stands in the list; nil when it names no order.
    static func position(_ handle: any StorageHandle, cursor: String) throws -> (Int64, String)? {
        guard let row = try handle.queryOne("SELECT created_at, id FROM orders WHERE id = ?", cursor) else { return nil }
        return (try row.get("created_at"), try row.get("id"))
    }
}

import Capabilities
import Domain

/// Orders whose checkout or cancellation still has work in other clients
/// (stock, cart, payment) not known finished, in a narrow table of their
/// own: a row is inserted when the order is placed or cancelled and
/// deleted when it settles. Marking the order row instead would rewrite it
/// at every settle (a flag in a partial index is an indexed column, so the
/// update is never HOT and every index of `orders` takes a new entry).
/// Start-up reconciliation reads this table, which holds the unfinished
/// few, and joins each row to its order by primary key.
extension OrderStore {
    static let openOrderMigrations: [Migration] = [
        Migration(version: 422, name: "open orders in a table of their own", portableSQL: """
            CREATE TABLE open_orders (
                order_id    TEXT PRIMARY KEY,
                created_at  INTEGER NOT NULL,
                lease_owner TEXT NOT NULL
            ) STRICT;
            INSERT INTO open_orders(order_id, created_at, lease_owner)
                SELECT id, created_at, lease_owner FROM orders WHERE open = 1;
            DROP INDEX orders_open;
            ALTER TABLE orders DROP COLUMN open;
            """),
    ]

    /// Up to `limit` open orders placed at or before `placedBy` (ms) or by
    /// `owner`, oldest first (ties by id), after `position` (the created_at
    /// and id of the previous batch's last).
    static func open(_ handle: any StorageHandle, placedBy cutoff: Int64, owner: String?,
                     after position: (Int64, String)?, limit: Int) throws -> [Order] {
        let (createdAt, id) = position ?? (Int64.min, "")
        return try handle.query("""
            SELECT o.document FROM open_orders p JOIN orders o ON o.id = p.order_id
            WHERE (p.created_at <= ? OR p.lease_owner = ?) AND (p.created_at, p.order_id) > (?, ?)
            ORDER BY p.created_at, p.order_id LIMIT ?
            """, cutoff, owner ?? "", createdAt, id, limit).map(decode)
    }

    /// Whether the order's checkout or cancellation still has work to finish.
    static func isOpen(_ handle: any StorageHandle, id: OrderID) throws -> Bool {
        try handle.queryOne("SELECT 1 FROM open_orders WHERE order_id = ?", id.description) != nil
    }

    /// Opens a newly placed order, under the lease of the process placing it.
    static func markOpen(_ handle: any StorageHandle, _ order: Order, owner: String) throws {
        try handle.enqueue("INSERT INTO open_orders(order_id, created_at, lease_owner) VALUES(?, ?, ?)",
                           order.id.description, order.createdAt.millisecondsSince1970, owner)
    }

    /// Opens a cancelled order again (its stock is still to return), under
    /// the lease it was placed with; an order still open stays as it is.
    static func reopen(_ handle: any StorageHandle, id: OrderID) throws {
        try handle.enqueue("""
            INSERT INTO open_orders(order_id, created_at, lease_owner)
            SELECT id, created_at, lease_owner FROM orders WHERE id = ?
            ON CONFLICT(order_id) DO NOTHING
            """, id.description)
    }

    /// Marks the order's work in other clients done; returns its stored
    /// status (the column's text), nil when there is no such order. Not the
    /// document: decoding it would be most of the settle's time on the
    /// single writer (docs/working-sets.md), and the caller already holds the order.
    static func settle(_ handle: any StorageHandle, id: OrderID) throws -> String? {
        try handle.enqueue("DELETE FROM open_orders WHERE order_id = ?", id.description)
        return try handle.queryOne("SELECT status FROM orders WHERE id = ?", id.description)?.get("status")
    }

    /// Settles the checkouts of `ids` (ids that name no open order change
    /// nothing), `settleChunk` to a statement: a short chunk repeats its
    /// last id, so one prepared statement serves every batch. An order
    /// cancelled since its checkout is left open: its cancellation reopened
    /// it until its stock is returned, and settles it itself.
    static func settleCheckouts(_ handle: any StorageHandle, ids: [OrderID]) throws {
        for start in stride(from: 0, to: ids.count, by: settleChunk) {
            let chunk = ids[start..<min(start + settleChunk, ids.count)].map { StorageValue.text($0.description) }
            let padded = chunk + Array(repeating: chunk[chunk.count - 1], count: settleChunk - chunk.count)
            try handle.enqueue(settleSQL, arguments: padded)
        }
    }

    static let settleChunk = 32
    private static let settleSQL = "DELETE FROM open_orders WHERE order_id IN ("
        + Array(repeating: "?", count: settleChunk).joined(separator: ", ")
        + ") AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = open_orders.order_id AND o.status = 'cancelled')"
}

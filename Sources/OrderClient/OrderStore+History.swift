import Capabilities
import Domain

/// Each order's status changes, one row per change, written in the same
/// transaction as the change (`insert` and `transition`), never updated.
/// An order's rows are read by `order_history_by_order`, oldest first; the
/// transition table is acyclic, so an order has a handful of rows at most.
extension OrderStore {
    /// Orders placed before the history have one row each: the status they
    /// held then, at their creation time, by the system.
    static let historyMigrations: [Migration] = [
        Migration(version: 420, name: "order status history", portableSQL: """
            CREATE TABLE order_history (
                id          INTEGER PRIMARY KEY,
                order_id    TEXT NOT NULL,
                from_status TEXT,
                status      TEXT NOT NULL,
                at          INTEGER NOT NULL,
                actor       TEXT NOT NULL,
                actor_id    TEXT,
                reason      TEXT NOT NULL
            ) STRICT;
            CREATE INDEX order_history_by_order ON order_history(order_id, id);
            \(historyBackfill)
            """),
    ]

    private static let historyBackfill = """
        INSERT INTO order_history(order_id, from_status, status, at, actor, actor_id, reason)
        SELECT id, NULL, status, created_at, 'system', NULL, 'before_history' FROM orders ORDER BY created_at, id;
        """

    static func recordHistory(_ handle: any StorageHandle, order: OrderID, _ entry: OrderHistoryEntry) throws {
        try handle.enqueue("""
            INSERT INTO order_history(order_id, from_status, status, at, actor, actor_id, reason)
            VALUES(?, ?, ?, ?, ?, ?, ?)
            """, order.description, entry.from?.rawValue, entry.status.rawValue, entry.at.millisecondsSince1970,
            entry.cause.actor.kind, entry.cause.actor.userID?.description, entry.cause.reason)
    }

    /// The order's changes, oldest first.
    static func history(_ handle: any StorageHandle, order: OrderID) throws -> [OrderHistoryEntry] {
        try handle.query("""
            SELECT from_status, status, at, actor, actor_id, reason FROM order_history WHERE order_id = ? ORDER BY id
            """, order.description).map(decodeHistory)
    }

    private static func decodeHistory(_ row: StorageRow) throws -> OrderHistoryEntry {
        func field<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else { throw OrderDataError(description: "order_history.\(name) holds an unknown value") }
            return value
        }
        let from = try row.get("from_status", as: String?.self)
        let actorID = try row.get("actor_id", as: String?.self)
        let actor = try field(OrderChangeCause.Actor(kind: try row.get("actor", as: String.self),
                                                     userID: try actorID.map { try field(UserID($0), "actor_id") }),
                              "actor")
        return OrderHistoryEntry(
            from: try from.map { try field(OrderStatus(rawValue: $0), "from_status") },
            status: try field(OrderStatus(rawValue: try row.get("status")), "status"),
            at: Timestamp(millisecondsSince1970: try row.get("at")),
            cause: OrderChangeCause(actor, reason: try row.get("reason")))
    }
}

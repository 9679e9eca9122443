import Capabilities
import Domain

/// The orders client's SQL, in the subset SQLite and PostgreSQL share
/// (only the migrations have a PostgreSQL text of their own). Every read is one probe of an index: the
/// primary key, `checkout_id`'s and `(user_id, idempotency_key)`'s unique
/// indexes, `orders_by_user_newest` for a user's pages, the narrow
/// `open_orders` for start-up reconciliation and `order_history_by_order`
/// for an order's status changes; nothing scans the table, so no
/// request and no start costs more as the shop's history grows. Write
/// functions run inside one storage transaction closure and may run again in
/// a later batch, so they are pure over the handle.
enum OrderStore {
    static let migrations: [Migration] = [
        Migration(version: 400, name: "orders", portableSQL: """
            CREATE TABLE orders (
                id              TEXT PRIMARY KEY,
                user_id         TEXT NOT NULL,
                status          TEXT NOT NULL,
                created_at      INTEGER NOT NULL,
                checkout_id     TEXT NOT NULL UNIQUE,
                idempotency_key TEXT,
                document        TEXT NOT NULL,
                UNIQUE (user_id, idempotency_key)
            ) STRICT;
            CREATE INDEX orders_by_user ON orders(user_id, created_at);
            """),
        // Orders are read from storage per request: a user's page
        // is a keyset range on this index, newest first with ties by id, so
        // no sort runs. `open` marks an order whose checkout or cancellation
        // still has work in other clients (stock, cart) not known finished;
        // start-up reconciliation reads only those through the partial
        // index. Orders written before this migration are all marked open,
        // so the first start after it finishes whatever they left (once).
        Migration(version: 401, name: "orders read by index, open orders", portableSQL: """
            DROP INDEX orders_by_user;
            CREATE INDEX orders_by_user_newest ON orders(user_id, created_at, id);
            ALTER TABLE orders ADD COLUMN open INTEGER NOT NULL DEFAULT 0 CHECK (open IN (0, 1));
            UPDATE orders SET open = 1;
            CREATE INDEX orders_open ON orders(created_at) WHERE open = 1;
            """),
        // The process that placed the order (its checkout's lease owner):
        // a restarting process finishes its own open orders at once, other
        // processes' only once their lease ran out (`open(…)`). Found
        // through `orders_open` (open orders are the unfinished few), not an
        // index of their own kept on every checkout.
        Migration(version: 402, name: "orders placed under a lease", portableSQL: """
            ALTER TABLE orders ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
            """),
        // What the checkout asked for (`CheckoutFingerprint`), kept with its
        // idempotency key; '' for orders placed before (any request matches).
        Migration(version: 403, name: "orders request fingerprint", portableSQL: """
            ALTER TABLE orders ADD COLUMN request_fingerprint TEXT NOT NULL DEFAULT '';
            """),
    ] + historyMigrations + listingMigrations + openOrderMigrations + unpaidMigrations

    static func order(_ handle: any StorageHandle, id: OrderID) throws -> Order? {
        try handle.queryOne("SELECT document FROM orders WHERE id = ?", id.description).map(decode)
    }

    static func order(_ handle: any StorageHandle, checkout: CheckoutID) throws -> Order? {
        try handle.queryOne("SELECT document FROM orders WHERE checkout_id = ?", checkout.description).map(decode)
    }

    /// The user's order placed with `key`, with the fingerprint of the
    /// request that placed it.
    static func order(_ handle: any StorageHandle, user: UserID, key: String) throws -> (Order, String)? {
        try handle.queryOne("SELECT document, request_fingerprint FROM orders WHERE user_id = ? AND idempotency_key = ?",
                            user.description, key).map { (try decode($0), try $0.get("request_fingerprint")) }
    }

    /// Frees a key kept past its time for a new checkout.
    static func forgetKey(_ handle: any StorageHandle, of id: OrderID) throws {
        try handle.enqueue("UPDATE orders SET idempotency_key = NULL WHERE id = ?", id.description)
    }

    /// Up to `limit + 1` of the user's orders, newest first (ties by id
    /// descending), after `position` (the created_at and id of the last
    /// order of the previous page).
    static func page(_ handle: any StorageHandle, user: UserID, after position: (Int64, String)?,
                     limit: Int) throws -> [Order] {
        let rows: [StorageRow]
        if let (createdAt, id) = position {
            rows = try handle.query("""
                SELECT document FROM orders WHERE user_id = ? AND (created_at, id) < (?, ?)
                ORDER BY created_at DESC, id DESC LIMIT ?
                """, user.description, createdAt, id, limit + 1)
        } else {
            rows = try handle.query("""
                SELECT document FROM orders WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?
                """, user.description, limit + 1)
        }
        return try rows.map(decode)
    }

    /// Where a cursor (an order id) stands in its user's list; nil when it
    /// names no order of that user.
    static func position(_ handle: any StorageHandle, user: UserID, cursor: String) throws -> (Int64, String)? {
        guard let row = try handle.queryOne("SELECT created_at, id FROM orders WHERE id = ? AND user_id = ?",
                                            cursor, user.description) else { return nil }
        return (try row.get("created_at"), try row.get("id"))
    }

    /// The order and its first history row: placed by its customer at
    /// checkout, unless this checkout or the user's key already has an
    /// order (false then, and nothing is written): the insert itself
    /// decides, and the caller looks the existing order up only then.
    static func insert(_ handle: any StorageHandle, _ order: Order, checkoutID: CheckoutID, key: String?,
                       fingerprint: String, document: String, owner: String) throws -> Bool {
        let inserted = try handle.query("""
            INSERT INTO orders(id, user_id, status, created_at, checkout_id, idempotency_key, document, lease_owner,
                               request_fingerprint)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING RETURNING id
            """, order.id.description, order.userID.description, order.status.rawValue,
            order.createdAt.millisecondsSince1970, checkoutID.description, key, document, owner, fingerprint)
        guard !inserted.isEmpty else { return false }
        try markOpen(handle, order, owner: owner)
        try recordHistory(handle, order: order.id, OrderHistoryEntry(
            from: nil, status: order.status, at: order.createdAt,
            cause: OrderChangeCause(.customer(order.userID), reason: "checkout")))
        return true
    }

    /// Moves the stored order to `status` (read in this transaction, so two
    /// transitions of one order cannot both start from the same status). A
    /// cancellation opens the order again: its stock is still to return.
    /// The change is recorded in the order's history with `cause`, at `at`.
    static func transition(_ handle: any StorageHandle, id: OrderID, to status: OrderStatus,
                           by actor: OrderActor, cause: OrderChangeCause, at: Timestamp) throws -> Order {
        // Locked until the commit (`lockingRead`): two replicas moving one
        // order at once (paid and cancelled) take turns, and the second
        // checks its move against the first's status instead of
        // overwriting it.
        guard let stored = try handle.queryOne("SELECT document FROM orders WHERE id = ?" + handle.lockingRead,
                                               id.description).map(decode) else {
            throw EntityError.notFound(entity: "order", id: id.description)
        }
        let changed = try stored.transitioned(to: status, by: actor)
        let document = OrderDocument.text(changed)
        try handle.enqueue("UPDATE orders SET status = ?, document = ? WHERE id = ?",
                           changed.status.rawValue, document, id.description)
        if changed.status == .cancelled { try reopen(handle, id: id) }
        try recordHistory(handle, order: id, OrderHistoryEntry(from: stored.status, status: changed.status, at: at,
                                                               cause: cause))
        return changed
    }

    /// Gives the stored order `address` (read locked in this transaction,
    /// as `transition` does, so a ship or a cancel racing it is seen):
    /// refused once it shipped or was cancelled.
    static func address(_ handle: any StorageHandle, id: OrderID, to address: ShippingAddress) throws -> Order {
        guard let stored = try handle.queryOne("SELECT document FROM orders WHERE id = ?" + handle.lockingRead,
                                               id.description).map(decode) else {
            throw EntityError.notFound(entity: "order", id: id.description)
        }
        let changed = try stored.addressed(to: address)
        try handle.enqueue("UPDATE orders SET document = ? WHERE id = ?", OrderDocument.text(changed), id.description)
        return changed
    }

    /// `user`'s orders that had a shipping address, stored without it
    /// (read locked, as `address` does, so an address given at once is not
    /// lost under this write or kept past it).
    static func eraseShippingAddresses(_ handle: any StorageHandle, user: UserID) throws -> [Order] {
        let orders = try handle.query("SELECT document FROM orders WHERE user_id = ?" + handle.lockingRead,
                                      user.description).map(decode)
        var changed: [Order] = []
        for order in orders where order.shippingAddress != nil {
            let erased = order.withoutShippingAddress()
            try handle.enqueue("UPDATE orders SET document = ? WHERE id = ?", OrderDocument.text(erased),
                               order.id.description)
            changed.append(erased)
        }
        return changed
    }

    static func decode(_ row: StorageRow) throws -> Order {
        try OrderDocument.decode(row.get("document"))
    }
}

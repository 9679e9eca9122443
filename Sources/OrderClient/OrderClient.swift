import Axiom
import Capabilities
import Domain
import FoundationEssentials

public enum OrderAction: Sendable {
    /// A pending order for a checkout; idempotent by checkout id and by the
    /// user's idempotency key (the existing order is returned).
    case place(checkoutID: CheckoutID, userID: UserID, cart: PricedCart, idempotencyKey: String?)
    case transition(OrderID, to: OrderStatus, by: OrderActor)
}

/// Published keyed by the order's `UserID`: an observer of one user
/// subscribes with `stateBroadcaster.subscribe(key: userID)`.
public enum OrderUpdate: Sendable, Hashable {
    case created(Order)
    case changed(Order)
}

/// The orders: the singleton owner of `OrderState`. An order's lines and
/// prices are frozen when it is placed; afterwards only its status moves,
/// along the domain's transition table. Each order row carries its whole
/// document (JSON) next to the columns that are searched or unique, so a
/// committed row always holds a complete, valid order.
public actor OrderClient: StatefulClient {
    public static let migrations: [Migration] = [
        Migration(version: 400, name: "orders", sql: """
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
    ]

    public nonisolated let stateBroadcaster = StateBroadcaster<OrderUpdate>(bufferLimit: 256)
    public private(set) var state = OrderState()
    private var idsByKey: [String: OrderID] = [:]
    /// Placements waiting on the disk, by checkout id and by user|key: the
    /// actor is re-entered while a write waits, so a concurrent duplicate
    /// joins the first placement instead of racing it into the unique index.
    private var placing: [String: Task<Order, any Error>] = [:]
    private let storage: CapabilityHandle<SQLiteStorage>

    public init(storage: CapabilityHandle<SQLiteStorage>) {
        self.storage = storage
    }

    public func activate() async throws {
        let rows = try await storage.current.read { handle in
            try handle.query("SELECT document, idempotency_key FROM orders").map { row -> (String, String?) in
                (try row.get("document"), try row.get("idempotency_key"))
            }
        }
        let decoder = JSONDecoder()
        var orders: [Order] = []
        for (document, key) in rows {
            let order = try decoder.decode(Order.self, from: Data(document.utf8))
            orders.append(order)
            if let key { idsByKey[Self.keyIndex(order.userID, key)] = order.id }
        }
        state = try OrderState(orders: orders)
    }

    public func deactivate() async {
        stateBroadcaster.finish()
    }

    public func send(_ action: OrderAction) async throws -> Order {
        switch action {
        case .place(let checkoutID, let userID, let cart, let key):
            try await place(checkoutID: checkoutID, userID: userID, cart: cart, idempotencyKey: key)
        case .transition(let id, let status, let actor):
            try await transition(id, to: status, by: actor)
        }
    }

    // MARK: Reads (memory)

    public func order(_ id: OrderID) throws(DomainError) -> Order {
        guard let order = state.order(id) else { throw DomainError.notFound(entity: "order", id: id.description) }
        return order
    }

    public func order(forCheckout checkoutID: CheckoutID) -> Order? {
        state.order(checkout: checkoutID)
    }

    public func order(userID: UserID, idempotencyKey: String) -> Order? {
        idsByKey[Self.keyIndex(userID, idempotencyKey)].flatMap { state.order($0) }
    }

    /// A user's orders newest first, `limit` at a time after `cursor` (the
    /// last order id of the previous page).
    public func orders(for userID: UserID, limit: Int, after cursor: String?) throws(DomainError) -> Page<Order> {
        try Page.slice(state.orders(for: userID), limit: limit, after: cursor) { $0.id.description }
    }

    /// Orders still pending (a checkout that did not finish): start-up
    /// reconciliation confirms or cancels them.
    public func pendingOrders() -> [Order] {
        state.orders.values.filter { $0.status == .pending }
    }

    // MARK: Writes

    private func place(checkoutID: CheckoutID, userID: UserID, cart: PricedCart, idempotencyKey: String?) async throws -> Order {
        if let existing = state.order(checkout: checkoutID) { return existing }
        if let key = idempotencyKey, let existing = order(userID: userID, idempotencyKey: key) { return existing }
        let checkoutSlot = "checkout|\(checkoutID)"
        let keySlot = idempotencyKey.map { "key|" + Self.keyIndex(userID, $0) }
        if let running = placing[checkoutSlot] ?? keySlot.flatMap({ placing[$0] }) {
            return try await running.value
        }
        let task = Task { try await self.insertPlaced(checkoutID: checkoutID, userID: userID, cart: cart, idempotencyKey: idempotencyKey) }
        placing[checkoutSlot] = task
        if let keySlot { placing[keySlot] = task }
        defer {
            placing[checkoutSlot] = nil
            if let keySlot { placing[keySlot] = nil }
        }
        return try await task.value
    }

    private func insertPlaced(checkoutID: CheckoutID, userID: UserID, cart: PricedCart, idempotencyKey: String?) async throws -> Order {
        let order = try Order.place(id: OrderID(UUID()), userID: userID, cart: cart,
                                    createdAt: Timestamp(Date()), checkoutID: checkoutID)
        let document = String(decoding: try JSONEncoder().encode(order), as: UTF8.self)
        try await write { handle in
            try handle.execute("""
                INSERT INTO orders(id, user_id, status, created_at, checkout_id, idempotency_key, document)
                VALUES(?, ?, ?, ?, ?, ?, ?)
                """, order.id.description, userID.description, order.status.rawValue,
                order.createdAt.millisecondsSince1970, checkoutID.description, idempotencyKey, document)
        }
        // A concurrent retry with the same key may have been applied while
        // this one waited on the disk; the unique key made this insert fail
        // then, so reaching here means this order is the one.
        try state.insert(order)
        if let idempotencyKey { idsByKey[Self.keyIndex(userID, idempotencyKey)] = order.id }
        stateBroadcaster.publish(.created(order), key: order.userID)
        return order
    }

    private func transition(_ id: OrderID, to status: OrderStatus, by actor: OrderActor) async throws -> Order {
        let changed = try order(id).transitioned(to: status, by: actor)
        let document = String(decoding: try JSONEncoder().encode(changed), as: UTF8.self)
        try await write { handle in
            try handle.execute("UPDATE orders SET status = ?, document = ? WHERE id = ?",
                               changed.status.rawValue, document, id.description)
        }
        try state.update(changed)
        stateBroadcaster.publish(.changed(changed), key: changed.userID)
        return changed
    }

    private func write(_ body: @escaping @Sendable (SQLiteHandle) throws -> Void) async throws {
        do {
            try await storage.durableWrite(body)
        } catch let error as StorageError where error.sqliteError?.isUniqueViolation == true {
            throw DomainError.duplicate(field: "idempotency_key", value: "")
        }
    }

    private static func keyIndex(_ user: UserID, _ key: String) -> String { "\(user)|\(key)" }
}

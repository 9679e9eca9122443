import Axiom
import Capabilities
import Domain
import FoundationEssentials

/// Published keyed by the order's `UserID`: an observer of one user
/// subscribes with `stateBroadcaster.subscribe(key: userID)`.
/// `sequence` is the change's row in the outbox (the `/events` id), the
/// same on every replica.
public enum OrderUpdate: Sendable, Hashable {
    case created(Order, sequence: Int64)
    case changed(Order, sequence: Int64)
}

/// The orders. An order's lines and
/// prices are frozen when it is placed; afterwards only its status moves,
/// along the domain's transition table, and its shipping address may be
/// given until it ships or is cancelled. Each order row carries its whole
/// document (JSON) next to the columns that are searched or unique, so a
/// committed row always holds a complete, valid order.
///
/// Orders are read from SQLite per request, by index (`OrderStore`), and
/// none is kept in memory: a shop's order history only grows, and loading
/// it would make start-up time and memory grow with it. So the client owns no
/// state (a `StatelessClient`); what observers need comes through
/// `stateBroadcaster`. Idempotency keys are found through the
/// unique `(user_id, idempotency_key)` index; retries that arrive while the
/// first placement waits on the disk join it (`placing`).
public actor OrderClient: StatelessClient, PublishingClient {
    public static let migrations: [Migration] = OrderStore.migrations

    public nonisolated let stateBroadcaster = StateBroadcaster<OrderUpdate>(bufferLimit: 256)
    /// Orders to settle (`settleSoon`), and the task writing them.
    private var settlesDue: [OrderID] = []
    private var settling: Task<Void, Never>?
    /// Placements waiting on the disk, by checkout id and by user|key: the
    /// actor is re-entered while a write waits, so a concurrent duplicate
    /// joins the first placement instead of racing it into the unique index.
    private var placing: [String: Task<Order, any Error>] = [:]
    let storage: StorageAccess
    /// The clock capability: an order's `created_at` (tests move it).
    private let clock: any TimeSource
    /// The process placing this client's orders (its checkouts' lease owner).
    private let owner: String
    /// How long an idempotency key answers with its order.
    private let keyLifetimeMilliseconds: Int64
    private let unpaidLimits: UnpaidOrderLimits
    /// Whether an order's changes enqueue its mails (`OrderMail`): only
    /// when something will send them.
    private let mails: Bool
    /// Whether they enqueue their webhook events (`OrderWebhookEvents`).
    private let webhooks: Bool

    /// Over SQLite or PostgreSQL alike: the client only sees `StorageHandle`s.
    public init(storage: StorageAccess, clock: any TimeSource, owner: String = "local",
                idempotencyKeyLifetimeSeconds: Int = 86_400, unpaidLimits: UnpaidOrderLimits = .unbounded,
                mails: Bool = false, webhooks: Bool = false) {
        self.storage = storage
        self.mails = mails
        self.webhooks = webhooks
        self.unpaidLimits = unpaidLimits
        self.clock = clock
        self.owner = owner
        keyLifetimeMilliseconds = Int64(idempotencyKeyLifetimeSeconds) * 1000
    }

    /// Reads nothing: orders are read when asked for.
    public func activate() async throws {}

    public func deactivate() async {
        await settling?.value
        stateBroadcaster.finish()
    }

    // MARK: Reads (storage, by index)

    /// `order_not_found`.
    public nonisolated func order(_ id: OrderID) async throws -> Order {
        guard let order = try await storage.storedRead({ try OrderStore.order($0, id: id) }) else {
            throw EntityError.notFound(entity: "order", id: id.description)
        }
        return order
    }

    /// The order's status changes, oldest first.
    public nonisolated func history(of id: OrderID) async throws -> [OrderHistoryEntry] {
        try await storage.storedRead { try OrderStore.history($0, order: id) }
    }

    public nonisolated func order(forCheckout checkoutID: CheckoutID) async throws -> Order? {
        try await storage.storedRead { try OrderStore.order($0, checkout: checkoutID) }
    }

    /// The user's order placed with `idempotencyKey` while the key is kept
    /// (`idempotency_key_ttl`); with `fingerprint`, `idempotency_key_reused`
    /// when that order was placed for another request.
    public nonisolated func order(userID: UserID, idempotencyKey: String,
                      matching fingerprint: CheckoutFingerprint?) async throws -> Order? {
        let keptSince = clock.millisecondsSince1970() - keyLifetimeMilliseconds
        return try await storage.storedRead {
            try Self.keyed($0, userID, idempotencyKey, fingerprint, keptSince: keptSince, forgetting: false)
        }
    }

    /// The order a kept key names; a key past its time names none (and is
    /// freed for the new order when `forgetting`, inside its placement).
    private static func keyed(_ handle: any StorageHandle, _ userID: UserID, _ key: String,
                              _ fingerprint: CheckoutFingerprint?, keptSince: Int64, forgetting: Bool) throws -> Order? {
        guard let (order, stored) = try OrderStore.order(handle, user: userID, key: key) else { return nil }
        if order.createdAt.millisecondsSince1970 < keptSince {
            if forgetting { try OrderStore.forgetKey(handle, of: order.id) }
            return nil
        }
        if let fingerprint, !stored.isEmpty, stored != fingerprint.text { throw OrderError.idempotencyKeyReused }
        return order
    }

    /// A user's orders newest first (created_at, ties by id, descending),
    /// `limit` at a time after `cursor` (the last
    /// order id of the previous page). A cursor that names no order of this
    /// user is `validation_failed` on `cursor`, as `Page.slice` answers.
    public nonisolated func orders(for userID: UserID, limit: Int, after cursor: String?) async throws -> Page<Order> {
        try await page(limit: limit) { handle, count in
            var position: (Int64, String)?
            if let cursor {
                guard let found = try OrderStore.position(handle, user: userID, cursor: cursor) else { return nil }
                position = found
            }
            return try OrderStore.page(handle, user: userID, after: position, limit: count)
        }
    }

    /// Every customer's orders that `filter` keeps, newest first, `limit`
    /// at a time after `cursor` (the last order id of the previous page;
    /// one that names no order is `validation_failed` on `cursor`).
    public nonisolated func orders(matching filter: OrderFilter, limit: Int, after cursor: String?) async throws -> Page<Order> {
        try await page(limit: limit) { handle, count in
            var position: (Int64, String)?
            if let cursor {
                guard let found = try OrderStore.position(handle, cursor: cursor) else { return nil }
                position = found
            }
            return try OrderStore.list(handle, filter: filter, after: position, limit: count)
        }
    }

    /// A keyset page of at most `limit` orders: `read` returns up to
    /// `count + 1` of them in one snapshot (one more says another page
    /// follows), or nil when the cursor names no order.
    private nonisolated func page(limit: Int, _ read: @escaping @Sendable (any StorageHandle, Int) throws -> [Order]?)
        async throws -> Page<Order> {
        let count = max(0, limit)
        guard let page = try await storage.storedRead({ try read($0, count) }) else {
            throw ValidationError([FieldError(field: "cursor", code: .invalidFormat,
                                                                     message: "cursor is not one this service issued")])
        }
        return Page(readAhead: page, limit: count) { $0.id.description }
    }

    /// The oldest `limit` orders whose checkout or cancellation may not have
    /// finished (placed or cancelled, not yet settled), placed at least
    /// `olderThanSeconds` ago (by this client's clock) or, when
    /// `includingOwn`, by this process (a previous life of it), after `last`
    /// (the previous batch's last, in created_at and id order): recovery
    /// finishes and settles them. Read from the table of open orders, so it costs
    /// what is unfinished, not what was ever ordered.
    public nonisolated func openOrders(limit: Int = 500, olderThanSeconds: Int = 0, includingOwn: Bool = false,
                           after last: Order? = nil) async throws -> [Order] {
        let cutoff = clock.millisecondsSince1970() - Int64(olderThanSeconds) * 1000
        let owner = includingOwn ? self.owner : nil
        let position = last.map { ($0.createdAt.millisecondsSince1970, $0.id.description) }
        return try await storage.storedRead {
            try OrderStore.open($0, placedBy: cutoff, owner: owner, after: position, limit: limit)
        }
    }

    /// Whether the order's checkout or cancellation has work not known
    /// finished (stock, cart, payment): true until it settles.
    public nonisolated func isOpen(_ id: OrderID) async throws -> Bool {
        try await storage.storedRead { try OrderStore.isOpen($0, id: id) }
    }

    // MARK: Writes

    /// A pending order for a checkout; idempotent by checkout id and by the
    /// user's idempotency key (the existing order is answered).
    public func place(checkoutID: CheckoutID, userID: UserID, cart: PricedCart, idempotencyKey: String?,
                      fingerprint: CheckoutFingerprint? = nil,
                      shippingAddress: ShippingAddress? = nil) async throws -> Order {
        let checkoutSlot = "checkout|\(checkoutID)"
        let keySlot = idempotencyKey.map { "key|\(userID)|\($0)" }
        if let running = placing[checkoutSlot] ?? keySlot.flatMap({ placing[$0] }) {
            return try await running.value
        }
        let task = Task {
            try await self.placeOnce(checkoutID: checkoutID, userID: userID, cart: cart, idempotencyKey: idempotencyKey,
                                     fingerprint: fingerprint, shippingAddress: shippingAddress)
        }
        // Registered before any await, so a duplicate arriving while this
        // one reads or writes joins it.
        placing[checkoutSlot] = task
        if let keySlot { placing[keySlot] = task }
        defer {
            placing[checkoutSlot] = nil
            if let keySlot { placing[keySlot] = nil }
        }
        return try await task.value
    }

    /// A new order, else the existing one of this checkout or key. The
    /// insert stands aside for either unique key (on PostgreSQL after
    /// waiting for a placement in flight on another replica to commit),
    /// and only then is the existing order looked up, in the same write
    /// transaction: a key kept past its time is freed there and the order
    /// inserted after all.
    private func placeOnce(checkoutID: CheckoutID, userID: UserID, cart: PricedCart, idempotencyKey: String?,
                           fingerprint: CheckoutFingerprint?, shippingAddress: ShippingAddress?) async throws -> Order {
        let order = try Order.place(id: OrderID(TimeOrderedUUID.make()), userID: userID, cart: cart,
                                    createdAt: Timestamp(millisecondsSince1970: clock.millisecondsSince1970()),
                                    checkoutID: checkoutID, shippingAddress: shippingAddress)
        let document = OrderDocument.text(order)
        let owner = self.owner
        let keptSince = order.createdAt.millisecondsSince1970 - keyLifetimeMilliseconds
        let limits = unpaidLimits
        let units = order.lines.reduce(0) { $0 + $1.quantity }
        let placedMail = mails
            ? try OrderMail(orderID: order.id, event: .placed).request(at: order.createdAt.millisecondsSince1970) : nil
        let createdEvent = webhooks
            ? try OrderWebhookEvents.request(.placed, orderID: order.id, at: order.createdAt.millisecondsSince1970) : nil
        let ((stored, created), sequence) = try await storage.sequencedWrite { handle -> (Order, Bool) in
            // In the placement's transaction: on SQLite one writer decides,
            // on PostgreSQL concurrent checkouts of one customer on
            // different replicas may each pass once (read committed).
            // A retried key refused here gets its order from the caller's
            // look-up after the refusal.
            if limits.isBounded {
                let unpaid = try OrderStore.unpaid(handle, user: userID)
                try limits.check(pending: unpaid.orders, held: unpaid.units, adding: units)
            }
            func inserted() throws -> Bool {
                try OrderStore.insert(handle, order, checkoutID: checkoutID, key: idempotencyKey,
                                      fingerprint: fingerprint?.text ?? "", document: document, owner: owner)
            }
            if try !inserted() {
                if let existing = try Self.existing(handle, checkoutID, userID, idempotencyKey, fingerprint,
                                                    keptSince: keptSince) {
                    return (existing, false)
                }
                guard try inserted() else { throw EntityError.duplicate(field: "idempotency_key", value: "") }
            }
            // Another replica's /events streams of this user hear it.
            try handle.recordChange(Self.change(of: order))
            if let placedMail { try handle.enqueue(placedMail) }
            if let createdEvent { try handle.enqueue(createdEvent) }
            return (order, true)
        }
        if created, let sequence { stateBroadcaster.publish(.created(stored, sequence: sequence), key: stored.userID) }
        return stored
    }

    /// The order already placed for this checkout or this user's kept key
    /// (`idempotency_key_reused` when placed for another request); a key
    /// kept past its time is freed for the new order.
    private static func existing(_ handle: any StorageHandle, _ checkoutID: CheckoutID, _ userID: UserID,
                                 _ idempotencyKey: String?, _ fingerprint: CheckoutFingerprint?,
                                 keptSince: Int64) throws -> Order? {
        if let existing = try OrderStore.order(handle, checkout: checkoutID) { return existing }
        guard let key = idempotencyKey else { return nil }
        return try keyed(handle, userID, key, fingerprint, keptSince: keptSince, forgetting: true)
    }

    /// Moves the order along the transition table as `actor`, recording
    /// the change and its `cause` in the order's history in the same
    /// transaction.
    public func transition(_ id: OrderID, to status: OrderStatus, by actor: OrderActor,
                           cause: OrderChangeCause) async throws -> Order {
        let at = Timestamp(millisecondsSince1970: clock.millisecondsSince1970())
        let announced = Self.announced(moving: status)
        let now = at.millisecondsSince1970
        let mail = try announced.flatMap { mails ? try OrderMail(orderID: id, event: $0).request(at: now) : nil }
        let event = try announced.flatMap { webhooks ? try OrderWebhookEvents.request($0, orderID: id, at: now) : nil }
        let (changed, sequence) = try await write { handle in
            let changed = try OrderStore.transition(handle, id: id, to: status, by: actor, cause: cause, at: at)
            try handle.recordChange(Self.change(of: changed))
            if let mail { try handle.enqueue(mail) }
            if let event { try handle.enqueue(event) }
            return changed
        }
        if let sequence { stateBroadcaster.publish(.changed(changed, sequence: sequence), key: changed.userID) }
        return changed
    }

    /// Gives or replaces the order's shipping address, while it has not
    /// shipped or been cancelled (`shipping_address_locked`).
    public func address(_ id: OrderID, to address: ShippingAddress) async throws -> Order {
        let (changed, sequence) = try await write { handle in
            let changed = try OrderStore.address(handle, id: id, to: address)
            try handle.recordChange(Self.change(of: changed))
            return changed
        }
        if let sequence { stateBroadcaster.publish(.changed(changed, sequence: sequence), key: changed.userID) }
        return changed
    }

    /// Takes the shipping address out of every order of `user` (the
    /// account's deletion); orders without one are left alone, so a
    /// repeat changes nothing. Answers how many orders changed.
    public func eraseShippingAddresses(of user: UserID) async throws -> Int {
        let (changed, sequence) = try await write { handle -> [Order] in
            let changed = try OrderStore.eraseShippingAddresses(handle, user: user)
            for order in changed { try handle.recordChange(Self.change(of: order)) }
            return changed
        }
        if let sequence {
            for order in changed { stateBroadcaster.publish(.changed(order, sequence: sequence), key: order.userID) }
        }
        return changed.count
    }

    /// The order's checkout or cancellation finished its work in the other
    /// clients (stock committed or returned, cart cleared): start-up
    /// reconciliation no longer looks at it. Answers the order as stored
    /// now: the one given unless its status moved (then it is read again),
    /// since only an order's status and shipping address move after it is
    /// placed and settling is about the status alone.
    public func settle(_ order: Order) async throws -> Order {
        guard let status = try await write({ try OrderStore.settle($0, id: order.id) }).0 else {
            throw EntityError.notFound(entity: "order", id: order.id.description)
        }
        return status == order.status.rawValue ? order : try await self.order(order.id)
    }

    /// A finished checkout's `settle`, queued: answers the order at once,
    /// and one task writes the queue, whatever it holds each time it gets
    /// the writer, until it is empty, so under load settles share writes
    /// instead of costing one each and a group commit more before a
    /// checkout's answer. Nothing a caller was told depends on it (the
    /// order, the stock, the payment and the cart are already durable); one
    /// lost to a kill leaves the order open, and start-up reconciliation
    /// finishes and settles it. An order cancelled before its settle lands
    /// stays open for its cancellation to finish. `deactivate` waits for
    /// the queue, so a graceful stop leaves none.
    public func settleSoon(_ order: Order) -> Order {
        settlesDue.append(order.id)
        if settling == nil { settling = Task { await self.writeDueSettles() } }
        return order
    }

    private func writeDueSettles() async {
        while !settlesDue.isEmpty {
            let ids = settlesDue
            settlesDue = []
            // A failed write leaves these orders open, which costs start-up
            // reconciliation a look at each and loses nothing.
            _ = try? await write { try OrderStore.settleCheckouts($0, ids: ids) }
        }
        settling = nil
    }

    /// What a move to `status` tells the customer (a mail) and the
    /// merchant's systems (a webhook event), if anything: one decision for both.
    private static func announced(moving status: OrderStatus) -> OrderMail.Event? {
        switch status {
        case .shipped: .shipped
        case .cancelled: .cancelled
        default: nil
        }
    }

    /// The outbox row of an order's change: keyed by the order, for its user.
    static func change(of order: Order) -> ChangeRecord {
        ChangeRecord(kind: .order, key: order.id.description, userID: order.userID.description)
    }

    private func write<R: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> R) async throws -> (R, Int64?) {
        do {
            return try await storage.sequencedWrite(body)
        } catch let error as StorageError where error.isUniqueViolation {
            throw EntityError.duplicate(field: "idempotency_key", value: "")
        }
    }
}

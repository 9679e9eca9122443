import Axiom
import Capabilities
import Domain
import FoundationEssentials
import Synchronization

/// The product catalogue: the singleton owner of `CatalogState`.
///
/// ## Writes
/// Validate (against the snapshot, so a bad request never touches the disk)
/// → one durable SQLite transaction that re-checks everything against the
/// rows and applies the change (`CatalogStore`) → apply the committed rows
/// to the snapshot → publish `CatalogUpdate` → return. A write fails with:
/// - `DomainError` (stable `code`s): `validation_failed` (422, every field),
///   `duplicate_sku`, `duplicate_checkout_id`, `insufficient_stock`,
///   `product_inactive` (409), `product_not_found`, `reservation_not_found`
///   (404);
/// - `AxiomError.capabilityUnavailable("Capabilities.SQLiteStorage")` when
///   storage cannot take writes (disk full, read-only, file gone, instance
///   closed while being re-created): the HTTP layer answers 503
///   `storage_unavailable`. Nothing was applied; a retry is safe.
///
/// ## Reads
/// Served from memory, never from storage, so they keep working while
/// storage is unavailable. The snapshot sits behind a `Mutex` rather than in
/// actor-isolated storage so that the read methods (`product`, `products`,
/// `snapshotProduct`) are `nonisolated`: `GET /products/{id}` costs a lock
/// and a dictionary lookup on the request's own thread instead of a hop
/// onto this actor, where every read would queue behind the others and
/// behind writes waiting on disk. The lock is held only to look up or to
/// apply committed rows, never across I/O.
///
/// Concurrent commits can complete in any order (group commit, actor
/// re-entrancy while a write awaits the disk); every product row carries a
/// version and the snapshot applies only newer versions, so it never moves
/// backwards.
///
/// ## Inactive products
/// `product(_:)` / `snapshotProduct(_:)` return a product whatever its
/// `active` flag (a cart must be able to show that a product it holds is
/// no longer sold; the presentation decides whether anonymous callers see
/// it). `products(_:)` lists only active products unless the query sets
/// `includeInactive` (for admins).
///
/// ## Checkout support (kill -9 at any moment)
/// `reserve` takes stock for a checkout in ONE transaction that also records
/// the reservation; `commitReservation` makes it final once the order
/// exists; `releaseReservation` gives it back. After a crash,
/// `pendingReservations()` lists the checkouts still holding stock: the
/// checkout context commits those whose order exists and releases the rest.
/// `returnStock` restocks a cancelled order once per key.
public actor CatalogClient: StatefulClient {
    public typealias State = CatalogState

    /// Migration versions 200–299 (see `CatalogSchema`).
    public static let migrations: [Migration] = CatalogSchema.migrations

    public nonisolated let stateBroadcaster: StateBroadcaster<CatalogUpdate>
    /// The deployment's currency: every price is in it.
    public nonisolated let currency: Currency
    private let storage: CapabilityHandle<SQLiteStorage>
    private nonisolated let snapshot: Mutex<CatalogSnapshot>

    public init(storage: CapabilityHandle<SQLiteStorage>, currency: Currency = .usd, updateBufferLimit: Int = 256) {
        self.storage = storage
        self.currency = currency
        self.stateBroadcaster = StateBroadcaster(bufferLimit: updateBufferLimit)
        self.snapshot = Mutex(CatalogSnapshot(currency: currency))
    }

    // MARK: Lifecycle

    /// Loads every product. Fails (the server refuses to start) when storage
    /// cannot be read or a stored product is invalid or priced in another
    /// currency than the deployment's.
    public func activate() async throws {
        let rows = try await read { try CatalogStore.loadAll($0) }
        let loaded = try CatalogSnapshot(currency: currency, loaded: rows)
        snapshot.withLock { $0 = loaded }
    }

    public func deactivate() async {
        stateBroadcaster.finish()
    }

    // MARK: Reads (nonisolated, from memory)

    /// The current state (a copy of the snapshot's `CatalogState`).
    public nonisolated var state: CatalogState {
        snapshot.withLock { $0.state }
    }

    /// The hot read path: a lock and a lookup, no actor hop, no storage.
    public nonisolated func snapshotProduct(_ id: ProductID) -> Product? {
        snapshot.withLock { $0.state.product(id) }
    }

    /// The products among `ids` that exist (active or not), by id, in one
    /// lock acquisition: what pricing a cart needs. Prefer it to `state`,
    /// whose copy makes the next write copy the whole catalogue.
    public nonisolated func snapshotProducts(_ ids: some Sequence<ProductID>) -> [ProductID: Product] {
        snapshot.withLock { snapshot in
            var found: [ProductID: Product] = [:]
            found.reserveCapacity(ids.underestimatedCount)
            for id in ids {
                if let product = snapshot.state.product(id) { found[id] = product }
            }
            return found
        }
    }

    /// A product, active or not; `product_not_found`.
    public nonisolated func product(_ id: ProductID) throws(DomainError) -> Product {
        guard let product = snapshotProduct(id) else {
            throw DomainError.notFound(entity: "product", id: id.description)
        }
        return product
    }

    /// One page of the list, ordered by case-folded name then id.
    /// `validation_failed` for a bad `limit` (1…100), `q` (too long) or
    /// `cursor` (not one this service issued).
    public nonisolated func products(_ query: ProductQuery) throws(DomainError) -> ProductPage {
        var errors = query.validate() ?? ValidationError()
        var after: ProductCursor?
        if let cursor = query.cursor, errors.codes(for: "cursor").isEmpty {
            after = ProductCursor(encoded: cursor)
            if after == nil { errors.add("cursor", .invalidFormat, "cursor is not one this service issued") }
        }
        try errors.throwIfAny()
        return snapshot.withLock { $0.page(query, after: after) }
    }

    /// Checkouts that still hold reserved stock, oldest first (read from
    /// storage: this is the start-up reconciliation list).
    public func pendingReservations() async throws -> [CheckoutID] {
        try await read { try CatalogStore.pending($0) }
    }

    /// The lines a checkout holds now; empty unless it is pending.
    public func reservation(_ checkoutID: CheckoutID) async throws -> [StockLine] {
        try await read { try CatalogStore.reservation($0, checkoutID) }
    }

    // MARK: Actions

    public func send(_ action: CatalogAction) async throws -> CatalogOutcome {
        switch action {
        case .create(let draft): .product(try await create(draft))
        case .update(let id, let patch): .product(try await update(id, patch))
        case .reserve(let checkoutID, let lines): .products(try await reserve(checkoutID: checkoutID, lines: lines))
        case .commitReservation(let checkoutID): .committed(lines: try await commitReservation(checkoutID))
        case .releaseReservation(let checkoutID): .products(try await releaseReservation(checkoutID))
        case .returnStock(let key, let lines): .products(try await returnStock(key: key, lines: lines))
        }
    }

    /// A new product with a fresh id. `validation_failed` (every field, the
    /// price's currency included), `duplicate_sku`.
    public func create(_ draft: ProductDraft) async throws -> Product {
        let product = try CatalogRules.product(from: draft, id: ProductID(UUID()), currency: currency)
        if snapshot.withLock({ $0.state.product(sku: product.sku) != nil }) {
            throw DomainError.duplicate(field: "sku", value: product.sku)
        }
        let row = try await write { try CatalogStore.insert($0, product) }
        await apply([row], created: true)
        return row.product
    }

    /// Applies `patch` (any of name, description, price, stock, active),
    /// all or nothing. `product_not_found`, `validation_failed` (every field).
    /// An empty patch returns the product unchanged.
    public func update(_ id: ProductID, _ patch: ProductPatch) async throws -> Product {
        let current = try product(id)
        let expected = try CatalogRules.patched(current, with: patch, currency: currency)
        if patch.isEmpty || expected == current { return current }
        let currency = self.currency
        let row = try await write { try CatalogStore.update($0, id, patch, currency: currency) }
        await apply([row], created: false)
        return row.product
    }

    /// Takes every line out of stock for `checkoutID` in one durable
    /// transaction and records the reservation; returns the products after.
    /// All or nothing: the first line that fails gives `product_not_found`,
    /// `product_inactive` or `insufficient_stock` and nothing is taken.
    /// `validation_failed` for malformed lines; `duplicate_checkout_id` when
    /// that checkout already reserved.
    public func reserve(checkoutID: CheckoutID, lines: [StockLine]) async throws -> [Product] {
        if let errors = StockLine.validate(lines) { throw DomainError.validation(errors) }
        let rows = try await write { try CatalogStore.reserve($0, checkoutID, lines) }
        await apply(rows, created: false)
        return rows.map(\.product)
    }

    /// Makes the reservation final (its rows are deleted; the stock stays
    /// taken). Returns the number of lines committed, 0 when it was already
    /// committed. `reservation_not_found` for an unknown or released checkout.
    public func commitReservation(_ checkoutID: CheckoutID) async throws -> Int {
        try await write { try CatalogStore.commit($0, checkoutID) }
    }

    /// Gives a pending reservation's units back and deletes it. Idempotent:
    /// an unknown, released or committed checkout is a no-op (`[]`).
    /// Returns the restocked products.
    public func releaseReservation(_ checkoutID: CheckoutID) async throws -> [Product] {
        let rows = try await write { try CatalogStore.release($0, checkoutID) }
        await apply(rows, created: false)
        return rows.map(\.product)
    }

    /// Restocks `lines` once per `key` (e.g. the cancelled order's id): a
    /// retried call with the same key is a no-op (`[]`). Works on inactive
    /// products; stock is capped at the maximum (1 000 000).
    /// `validation_failed` (key, lines), `product_not_found` (nothing applied).
    public func returnStock(key: String, lines: [StockLine]) async throws -> [Product] {
        var errors = CatalogRules.validateReturnKey(key) ?? ValidationError()
        errors.merge(StockLine.validate(lines))
        try errors.throwIfAny()
        let rows = try await write { try CatalogStore.returnStock($0, key: key, lines: lines) }
        await apply(rows, created: false)
        return rows.map(\.product)
    }

    // MARK: Internals

    /// Applies committed rows to the snapshot and publishes what changed.
    /// The rows come from a committed transaction, so they passed the same
    /// checks the state makes; should the state still refuse one, the
    /// snapshot is reloaded from storage rather than left diverging.
    private func apply(_ rows: [VersionedProduct], created: Bool) async {
        let (applied, refused): ([Product], Bool) = snapshot.withLock { snapshot in
            var applied: [Product] = []
            for row in rows {
                do {
                    if try snapshot.apply(row) { applied.append(row.product) }
                } catch {
                    return (applied, true)
                }
            }
            return (applied, false)
        }
        for product in applied {
            stateBroadcaster.publish(created ? .created(product) : .changed(product))
        }
        if refused, let rows = try? await read({ try CatalogStore.loadAll($0) }),
           let reloaded = try? CatalogSnapshot(currency: currency, loaded: rows) {
            snapshot.withLock { $0 = reloaded }
        }
    }

    private func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteHandle) throws -> T) async throws -> T {
        try await storage.durableWrite(body)
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteHandle) throws -> T) async throws -> T {
        try await storage.storedRead(body)
    }
}

import Axiom
import Capabilities
import Domain
import FoundationEssentials
import Synchronization

/// The product catalogue: the singleton owner of `CatalogState`, which is a
/// bounded working set of the products table, never a copy of it.
///
/// ## Writes
/// Validate (so a bad request never touches the disk) → one durable
/// transaction (SQLite or PostgreSQL: `StorageAccess`) that checks everything against the rows and applies the
/// change (`CatalogStore`; the search index follows by trigger in the same
/// transaction) → apply the committed rows to the working set → publish
/// `CatalogUpdate` → return. A write fails with:
/// - a `Refusal` (stable `code`s): `validation_failed` (422, every field),
///   `duplicate_sku`, `duplicate_checkout_id`, `insufficient_stock`,
///   `product_inactive` (409), `product_not_found`, `reservation_not_found`
///   (404);
/// - `AxiomError.capabilityUnavailable` (the storage's type name) when
///   storage cannot take writes (disk full, read-only, file gone, instance
///   closed while being re-created): the HTTP layer answers 503
///   `storage_unavailable`. Nothing was applied; a retry is safe.
///
/// ## Reads
/// A product read is served from the working set (`VersionedWorkingSet`, at
/// most `cacheEntries` products, CLOCK eviction) and, on a miss, by a
/// prepared primary-key read on a reader connection, whose row is then kept;
/// concurrent misses of one product share one read. The set sits behind
/// sharded locks rather than in actor-isolated storage so that the reads
/// are `nonisolated`: a hit on `GET /products/{id}` costs a lock, a
/// dictionary lookup and a flag on the request's own thread instead of a
/// hop onto this actor, where every read would queue behind the others and
/// behind writes waiting on disk. The lock is held only to look up or to
/// apply rows, never across I/O. Lists and searches are keyset queries on
/// indexes (`CatalogStore+Listing`), never scans of memory. A miss while
/// storage is unavailable throws `capabilityUnavailable` (503); hits keep
/// being served.
///
/// Commits and miss reads can land in any order (group commit, actor
/// re-entrancy, reader queues); every product row carries a version and the
/// working set keeps only newer versions, and a late row for a product it
/// has evicted meanwhile is not kept (see `VersionedShard`), so it never moves
/// backwards.
///
/// ## Inactive products
/// `product(_:)` / `lookup(_:)` return a product whatever its `active` flag
/// (a cart must be able to show that a product it holds is no longer sold;
/// the presentation decides whether anonymous callers see it).
/// `products(_:)` lists only active products unless the query's `shown`
/// asks for all or for the inactive ones (for admins).
///
/// ## Checkout support (kill -9 at any moment)
/// `reserve` takes stock for a checkout in ONE transaction that also records
/// the reservation; `commitReservation` makes it final once the order
/// exists; `releaseReservation` gives it back. Each reservation carries
/// this process's `CheckoutLease`; `expiredReservations` lists those whose
/// lease ran out (after a crash, or a pause longer than the lease): the
/// recovery context commits those whose order exists and releases the rest.
/// `returnStock` restocks a cancelled order once per key.
public actor CatalogClient: StatefulClient, WorkingSetReporting {
    public typealias State = CatalogState

    /// Migration versions 200–299 (see `CatalogSchema`).
    public static let migrations: [Migration] = CatalogSchema.migrations
    /// The working set's default bound: reads follow popularity, so the
    /// share they find in memory grows with the log of the bound, while its
    /// memory (a product with its encoded page, about a kilobyte) grows
    /// linearly; docs/working-sets.md has the measurements behind it.
    public static let defaultCacheEntries = 100_000
    /// `SearchCache`'s bound: 2,000,000 ranked matches, 32 MB (at least
    /// 15,000 queries' kept matches, `SearchCache.matchesPerQuery` at most each).
    public static let defaultSearchCacheMatches = 2_000_000

    public nonisolated let stateBroadcaster: StateBroadcaster<CatalogUpdate>
    /// The deployment's currency: every price is in it.
    public nonisolated let currency: Currency
    nonisolated let storage: StorageAccess
    /// The working set (reads: `CatalogClient+Reads`), with each product's
    /// encoded page kept beside it by the caller that encodes it.
    @usableFromInline nonisolated let cache: VersionedWorkingSet<ProductID, Product>
    /// Recent searches' rankings (`SearchCache`).
    nonisolated let searches: Mutex<SearchCache>
    /// The lease this process's reservations carry.
    public nonisolated let lease: CheckoutLease
    /// Whether writes enqueue their webhook events, and when they happen.
    nonisolated let events: CatalogWebhookEvents
    private nonisolated let clock: any TimeSource

    /// `cacheEntries`: the most products kept in memory (at least 1).
    /// `searchCacheMatches`: the most ranked matches kept (0: none).
    /// `webhooks`: each write enqueues its webhook events in its own
    /// transaction (`CatalogWebhookEvents`), timed by `clock`.
    public init(storage: StorageAccess, currency: Currency = .usd,
                cacheEntries: Int = CatalogClient.defaultCacheEntries,
                searchCacheMatches: Int = CatalogClient.defaultSearchCacheMatches, updateBufferLimit: Int = 256,
                lease: CheckoutLease = .default, clock: any TimeSource = SystemClockCapability(),
                webhooks: Bool = false) {
        self.storage = storage
        self.lease = lease
        self.clock = clock
        events = CatalogWebhookEvents(isOn: webhooks)
        self.currency = currency
        self.stateBroadcaster = StateBroadcaster(bufferLimit: updateBufferLimit)
        self.cache = VersionedWorkingSet(name: "products", capacity: cacheEntries)
        self.searches = Mutex(SearchCache(maxMatches: searchCacheMatches))
    }

    // MARK: Lifecycle

    /// Reads nothing that grows with the catalogue: refuses to start (the
    /// server does not come up) when a stored price is in another currency
    /// than the deployment's (two index probes), and folds the names of rows
    /// written before migration 202 (once, in batches).
    public func activate() async throws {
        let code = currency.code
        if try await read({ try CatalogStore.hasOtherCurrency($0, than: code) }) {
            throw CatalogDataError(description: "a stored product is priced in another currency than \(code)")
        }
        while try await write({ try CatalogStore.foldNames($0, batch: 500) }) > 0 {}
    }

    public func deactivate() async {
        stateBroadcaster.finish()
    }

    /// Checkouts that still hold reserved stock, oldest first (read from
    /// storage: this is the start-up reconciliation list).
    public nonisolated func pendingReservations() async throws -> [CheckoutID] {
        try await read { try CatalogStore.pending($0) }
    }

    /// Up to `limit` reserved checkouts whose lease ran out and, when
    /// `includingOwn`, those this process's lease owner holds (what a
    /// previous life of this process left), soonest expired first.
    public nonisolated func expiredReservations(includingOwn: Bool, limit: Int) async throws -> [CheckoutID] {
        let owner = includingOwn ? lease.owner : nil
        return try await read { try CatalogStore.expiredReservations($0, owner: owner, limit: limit) }
    }

    /// The lines a checkout holds now; empty unless it is pending.
    public nonisolated func reservation(_ checkoutID: CheckoutID) async throws -> [StockLine] {
        try await read { try CatalogStore.reservation($0, checkoutID) }
    }

    // MARK: Writes

    /// A new product with a fresh id. `validation_failed` (every field, the
    /// price's currency included), `duplicate_sku`.
    public func create(_ draft: ProductDraft) async throws -> Product {
        let product = try CatalogRules.product(from: draft, id: ProductID(RandomUUID.make()), currency: currency)
        let started = cache.start(of: product.id)
        let (events, now) = (self.events, clock.millisecondsSince1970())
        let row = try await write { handle in
            let row = try CatalogStore.insert(handle, product)
            try events.created(product, at: now, on: handle)
            return try Self.recorded(.product, handle, [WrittenProduct(row: row, stockBefore: nil)], at: now,
                                     events: events)[0]
        }
        searches.withLock { $0.invalidate() }
        apply([row], startedAt: started, created: true)
        return row.product
    }

    /// Applies `patch` (any of name, description, price, stock, active,
    /// stock alert threshold), all or nothing. `product_not_found`,
    /// `validation_failed` (every field).
    /// An empty patch returns the product unchanged. With `unchangedFrom`,
    /// `precondition_failed` unless the product is that value when the
    /// change commits: compared inside the write's transaction, so of two
    /// writers that read the same product one wins and one is refused.
    public func update(_ id: ProductID, _ patch: ProductPatch, unchangedFrom: Product? = nil) async throws -> Product {
        let current = try await product(id)
        if let unchangedFrom, current != unchangedFrom { throw EntityError.preconditionFailed(entity: "product") }
        let expected = try CatalogRules.patched(current, with: patch, currency: currency)
        if patch.isEmpty || expected == current { return current }
        let currency = self.currency
        let started = cache.start(of: id)
        let (events, now) = (self.events, clock.millisecondsSince1970())
        let row = try await write { handle in
            let (written, changed) = try CatalogStore.update(handle, id, patch, currency: currency,
                                                             unchangedFrom: unchangedFrom)
            if changed { try events.updated(written.row.product, at: now, on: handle) }
            return try Self.recorded(.product, handle, [written], at: now, events: events)[0]
        }
        // The indexed text (name, description; the SKU is not patchable)
        // changed: every kept ranking may be wrong. Other fields are read
        // fresh by each page.
        if patch.name != nil || patch.description != nil { searches.withLock { $0.invalidate() } }
        apply([row], startedAt: started, created: false)
        return row.product
    }

    /// Takes every line out of stock for `checkoutID` in one durable
    /// transaction and records the reservation; returns the products after.
    /// All or nothing: the first line that fails gives `product_not_found`,
    /// `product_inactive` or `insufficient_stock` and nothing is taken.
    /// `validation_failed` for malformed lines; `duplicate_checkout_id` when
    /// that checkout already reserved.
    public func reserve(_ checkoutID: CheckoutID, _ lines: [StockLine]) async throws -> [Product] {
        if let errors = StockLine.validate(lines) { throw errors }
        let started = cache.start(of: lines.map(\.productID))
        let lease = self.lease
        let (events, now) = (self.events, clock.millisecondsSince1970())
        let rows = try await write {
            try Self.recorded(.stock, $0, CatalogStore.reserve($0, checkoutID, lines, lease: lease), at: now,
                              events: events)
        }
        apply(rows, startedAt: started, created: false)
        return rows.map(\.product)
    }

    /// Makes the reservation final (its rows are deleted; the stock stays
    /// taken). Returns the number of lines committed, 0 when it was already
    /// committed or `returnKey` was applied. A released checkout takes
    /// `ordered` again or fails with the product's refusal
    /// (`insufficient_stock`, `product_inactive`, `product_not_found`);
    /// `reservation_not_found` for an unknown checkout, or a released one
    /// without `ordered`.
    public func commitReservation(_ checkoutID: CheckoutID, ordered: [StockLine] = [],
                                  unlessReturned returnKey: String? = nil) async throws -> Int {
        if let errors = StockLine.validate(ordered), !ordered.isEmpty { throw errors }
        // Only a released checkout's `ordered` lines come back as rows.
        let started = cache.start(of: ordered.map(\.productID))
        let (events, now) = (self.events, clock.millisecondsSince1970())
        let done = try await write { handle in
            let done = try CatalogStore.commit(handle, checkoutID, ordered: ordered, returnKey: returnKey)
            return (done.lines, try Self.recorded(.stock, handle, done.retaken, at: now, events: events))
        }
        apply(done.1, startedAt: started, created: false)
        return done.0
    }

    /// Gives a pending reservation's units back and deletes it. Idempotent:
    /// an unknown, released or committed checkout is a no-op (`[]`).
    /// Returns the restocked products.
    public func releaseReservation(_ checkoutID: CheckoutID) async throws -> [Product] {
        let started = cache.start()
        let (events, now) = (self.events, clock.millisecondsSince1970())
        let rows = try await write {
            try Self.recorded(.stock, $0, CatalogStore.release($0, checkoutID), at: now, events: events)
        }
        apply(rows, startedAt: started, created: false)
        return rows.map(\.product)
    }

    /// Restocks `lines` once per `key` (e.g. the cancelled order's id): a
    /// retried call with the same key is a no-op (`[]`). Works on inactive
    /// products. With `checkout`, only what that checkout still holds comes
    /// back (`CatalogStore.returnStock`). `validation_failed` (key, lines),
    /// `product_not_found`, `stock_limit_exceeded` (beyond the maximum
    /// stock, 1 000 000); nothing applied on an error.
    public func returnStock(key: String, lines: [StockLine], checkout: CheckoutID? = nil) async throws -> [Product] {
        var errors = CatalogRules.validateReturnKey(key) ?? ValidationError()
        errors.merge(StockLine.validate(lines))
        try errors.throwIfAny()
        let started = cache.start(of: lines.map(\.productID))
        let (events, now) = (self.events, clock.millisecondsSince1970())
        let rows = try await write {
            try Self.recorded(.stock, $0, CatalogStore.returnStock($0, key: key, lines: lines, checkout: checkout),
                              at: now, events: events)
        }
        apply(rows, startedAt: started, created: false)
        return rows.map(\.product)
    }

    // MARK: Internals

    /// Applies committed rows to the working set and publishes each one
    /// that is not older than what the set holds.
    private nonisolated func apply(_ rows: [VersionedProduct], startedAt started: VersionedWorkingSet<ProductID, Product>.Start,
                                   created: Bool) {
        for row in cache.applyCommitted(rows, startedAt: started) {
            stateBroadcaster.publish(created ? .created(row.product) : .changed(row.product))
        }
    }

    /// Records each written product in the outbox, in the write's
    /// transaction, so other replicas refresh it, with `product.stock_low`
    /// for each whose stock the write took to its threshold: every write
    /// of a product passes here, so no way of moving stock misses the alert.
    private static func recorded(_ kind: ChangeKind, _ handle: any StorageHandle, _ written: [WrittenProduct],
                                 at now: Int64, events: CatalogWebhookEvents) throws -> [VersionedProduct] {
        for product in written {
            try handle.recordChange(ChangeRecord(kind: kind, key: product.row.product.id.description))
        }
        try events.stockLow(written, at: now, on: handle)
        return written.map(\.row)
    }

    private nonisolated func write<T: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> T {
        try await storage.durableWrite(body)
    }

    nonisolated func read<T: Sendable>(_ body: @escaping @Sendable (any StorageHandle) throws -> T) async throws -> T {
        try await storage.storedRead(body)
    }
}

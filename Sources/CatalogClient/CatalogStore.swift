import Capabilities
import Domain

/// The catalogue's SQL, on SQLite and PostgreSQL alike. Every function runs
/// inside one durable write (or read) closure, so a write's checks and
/// changes see and make one consistent step of the database: the checks are
/// done against the rows, never against the in-memory working set, and a
/// thrown error rolls back all of the request's statements. The functions
/// are pure over the handle (the storage may run a write closure again in a
/// later batch).
///
/// Several processes may write one PostgreSQL database, and its write
/// transactions are READ COMMITTED: stock moves by conditional updates
/// (`stock = stock - ? WHERE … AND stock >= ?`), which PostgreSQL
/// re-evaluates on the newest row after waiting for a concurrent writer, so
/// a reservation never oversells whatever another process did meanwhile;
/// a read-then-write (a patch, a checkout's status) locks its row first
/// (`FOR UPDATE`). SQLite has one writer per file, so neither lock is
/// needed there (and `FOR UPDATE` is not its syntax).
enum CatalogStore {
    static let columns =
        "id, sku, name, description, price_amount, price_currency, stock, active, version, low_stock_threshold"

    // MARK: Products

    /// The stored product; `locking` holds its row until the transaction
    /// ends on PostgreSQL (another process's write of it waits).
    static func fetch(_ handle: any StorageHandle, _ id: ProductID, locking: Bool = false) throws -> VersionedProduct? {
        try handle.queryOne(fetchSQL + lock(handle, locking), id.description).map(decode)
    }

    /// Written once: a miss would otherwise build the text anew for each read.
    private static let fetchSQL = "SELECT \(columns) FROM products WHERE id = ?"

    /// Inserts a new, validated product; `duplicate(sku)` when the SKU is taken.
    static func insert(_ handle: any StorageHandle, _ product: Product) throws -> VersionedProduct {
        let now = CatalogSchema.now(handle.dialect)
        // ON CONFLICT, not a caught error: a failed statement aborts the
        // request on PostgreSQL. It also covers a SKU another process
        // inserts between a check and the insert.
        let inserted = try handle.execute("""
            INSERT INTO products(\(columns), name_folded, created_at, updated_at)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, \(now), \(now))
            ON CONFLICT(sku) DO NOTHING
            """, product.id.description, product.sku, product.name, product.description,
            product.price.amount, product.price.currency.code, product.stock, product.active,
            product.lowStockThreshold, ProductCursor.fold(product.name))
        guard inserted == 1 else {
            throw EntityError.duplicate(field: "sku", value: product.sku)
        }
        return VersionedProduct(product: product, version: 1)
    }

    /// Writes every mutable field of `product` over the row last read at
    /// `previous` and bumps the version.
    static func save(_ handle: any StorageHandle, _ product: Product, previous: VersionedProduct) throws -> WrittenProduct {
        let version = previous.version + 1
        let changed = try handle.execute("""
            UPDATE products SET name = ?, name_folded = ?, description = ?, price_amount = ?, price_currency = ?,
                stock = ?, active = ?, low_stock_threshold = ?, version = ?,
                updated_at = \(CatalogSchema.now(handle.dialect))
            WHERE id = ? AND version = ?
            """, product.name, ProductCursor.fold(product.name), product.description, product.price.amount,
            product.price.currency.code, product.stock, product.active, product.lowStockThreshold, version,
            product.id.description, previous.version)
        guard changed == 1 else {
            throw CatalogDataError(description: "product \(product.id) changed under its own write transaction")
        }
        return WrittenProduct(row: VersionedProduct(product: product, version: version),
                              stockBefore: previous.product.stock)
    }

    /// Applies an admin's patch to the stored product, and says whether it
    /// changed anything. `product_not_found`; validation lists every
    /// failing field (the currency included).
    static func update(_ handle: any StorageHandle, _ id: ProductID, _ patch: ProductPatch,
                       currency: Currency, unchangedFrom: Product? = nil) throws -> (written: WrittenProduct, changed: Bool) {
        guard let current = try fetch(handle, id, locking: true) else {
            throw EntityError.notFound(entity: "product", id: id.description)
        }
        // If-Match, in the transaction that makes the change (RFC 9110
        // 13.1.1): a change committed since the caller's read fails it.
        if let unchangedFrom, current.product != unchangedFrom {
            throw EntityError.preconditionFailed(entity: "product")
        }
        let next = try CatalogRules.patched(current.product, with: patch, currency: currency)
        if patch.isEmpty || next == current.product {
            return (WrittenProduct(row: current, stockBefore: current.product.stock), false)
        }
        return (try save(handle, next, previous: current), true)
    }

    // MARK: Reservations

    /// Records the checkout, takes every line out of stock and records the
    /// reservation rows — or, on the first line that cannot be reserved,
    /// throws its error (`product_not_found`, `product_inactive`,
    /// `insufficient_stock`) and nothing of the request remains.
    /// The checkout's row carries `lease` (owner and end) in the same
    /// statement, so holding a lease costs no extra write.
    static func reserve(_ handle: any StorageHandle, _ checkout: CheckoutID, _ lines: [StockLine],
                        lease: CheckoutLease) throws -> [WrittenProduct] {
        let now = CatalogSchema.now(handle.dialect)
        let recorded = try handle.execute("""
            INSERT INTO stock_checkouts(checkout_id, status, created_at, updated_at, lease_owner, lease_expires_at)
            VALUES(?, 'reserved', \(now), \(now), ?, \(CatalogSchema.now(handle.dialect, plus: lease.seconds)))
            ON CONFLICT(checkout_id) DO NOTHING
            """, checkout.description, lease.owner)
        guard recorded == 1 else { throw EntityError.duplicate(field: "checkout_id", value: checkout.description) }
        let changed = try take(handle, lines)
        for line in lines {
            try handle.enqueue("""
                INSERT INTO stock_reservations(checkout_id, product_id, quantity, created_at)
                VALUES(?, ?, ?, \(now))
                """, checkout.description, line.productID.description, line.quantity)
        }
        return changed
    }

    /// Why the conditional update took nothing for `line`: the product's
    /// own rule on the row as it is now (`product_not_found`,
    /// `product_inactive`, `insufficient_stock`).
    private static func refusal(_ handle: any StorageHandle, _ line: StockLine) throws -> any Error {
        guard let current = try fetch(handle, line.productID) else {
            return EntityError.notFound(entity: "product", id: line.productID.description)
        }
        do {
            _ = try current.product.reserving(line.quantity)
        } catch {
            return error
        }
        return CatalogDataError(description: "product \(line.productID) refused \(line.quantity) units its rules allow")
    }

    /// Makes a reservation final: deletes its rows (the stock stays taken).
    /// Already committed → 0 lines. Released (its lease ran out and recovery
    /// gave the stock back while the order was being placed): `ordered` is
    /// taken again by the same conditional updates as a reservation, or the
    /// product's refusal is thrown and nothing changes, so an order never
    /// stands without its stock; unless `returnKey` was applied meanwhile
    /// (the order was cancelled: nothing to take). Unknown →
    /// `reservation_not_found`.
    static func commit(_ handle: any StorageHandle, _ checkout: CheckoutID, ordered: [StockLine],
                       returnKey: String?) throws -> (lines: Int, retaken: [WrittenProduct]) {
        // The common case in one statement: a reservation still held is
        // committed by a conditional update, which takes the row's lock
        // first (and on PostgreSQL reads the row again after a concurrent
        // release commits); only when it matched nothing is the status read.
        if try !handle.query("""
            UPDATE stock_checkouts SET status = 'committed', updated_at = \(CatalogSchema.now(handle.dialect))
            WHERE checkout_id = ? AND status = 'reserved' RETURNING checkout_id
            """, checkout.description).isEmpty {
            return (try handle.execute("DELETE FROM stock_reservations WHERE checkout_id = ?", checkout.description), [])
        }
        switch try status(handle, checkout, locking: true) {
        case "committed":
            return (0, [])
        case "released" where !ordered.isEmpty:
            if let returnKey, try returned(handle, returnKey) { return (0, []) }
            let retaken = try take(handle, ordered)
            try setStatus(handle, checkout, "committed")
            return (ordered.count, retaken)
        default:
            throw EntityError.notFound(entity: "reservation", id: checkout.description)
        }
    }

    /// Takes every line out of stock by a conditional update, or throws the
    /// first line's refusal.
    private static func take(_ handle: any StorageHandle, _ lines: [StockLine]) throws -> [WrittenProduct] {
        let now = CatalogSchema.now(handle.dialect)
        var changed: [WrittenProduct] = []
        for line in lines {
            let taken = try handle.queryOne("""
                UPDATE products SET stock = stock - ?, version = version + 1, updated_at = \(now)
                WHERE id = ? AND active = 1 AND stock >= ?
                RETURNING \(columns)
                """, line.quantity, line.productID.description, line.quantity).map(decode)
            guard let taken else { throw try refusal(handle, line) }
            // The update took exactly `quantity` from the row it locked.
            changed.append(WrittenProduct(row: taken, stockBefore: taken.product.stock + line.quantity))
        }
        return changed
    }

    private static func returned(_ handle: any StorageHandle, _ key: String) throws -> Bool {
        try handle.queryOne("SELECT 1 FROM stock_returns WHERE return_key = ?", key) != nil
    }

    /// Puts a reserved checkout's units back and deletes its rows. Anything
    /// but a `reserved` checkout (unknown, released, committed) is a no-op.
    static func release(_ handle: any StorageHandle, _ checkout: CheckoutID) throws -> [WrittenProduct] {
        guard try status(handle, checkout, locking: true) == "reserved" else { return [] }
        let rows = try handle.query("""
            SELECT product_id, quantity FROM stock_reservations WHERE checkout_id = ? ORDER BY product_id
            """, checkout.description)
        var changed: [WrittenProduct] = []
        for row in rows {
            let text: String = try row.get(0)
            guard let id = ProductID(text) else { throw CatalogDataError(description: "reservation names product \(text)") }
            if let restocked = try restock(handle, id, by: try row.get(1)) { changed.append(restocked) }
        }
        try handle.enqueue("DELETE FROM stock_reservations WHERE checkout_id = ?", checkout.description)
        try setStatus(handle, checkout, "released")
        return changed
    }

    /// Checkouts still holding stock, oldest first.
    static func pending(_ handle: any StorageHandle) throws -> [CheckoutID] {
        try checkoutIDs(handle.query("""
            SELECT checkout_id FROM stock_checkouts WHERE status = 'reserved' ORDER BY created_at, checkout_id
            """))
    }

    /// Up to `limit` reserved checkouts whose lease ran out (on the
    /// database's clock), and with `owner` also those `owner` holds (a
    /// restarting process's own, left by its previous life), soonest
    /// expired first, through the partial index of reserved checkouts.
    static func expiredReservations(_ handle: any StorageHandle, owner: String?, limit: Int) throws -> [CheckoutID] {
        let now = CatalogSchema.now(handle.dialect)
        guard let owner else {
            return try checkoutIDs(handle.query("""
                SELECT checkout_id FROM stock_checkouts WHERE status = 'reserved' AND lease_expires_at < \(now)
                ORDER BY lease_expires_at LIMIT ?
                """, limit))
        }
        return try checkoutIDs(handle.query("""
            SELECT checkout_id FROM stock_checkouts
            WHERE status = 'reserved' AND (lease_expires_at < \(now) OR lease_owner = ?)
            ORDER BY lease_expires_at LIMIT ?
            """, owner, limit))
    }

    private static func checkoutIDs(_ rows: [StorageRow]) throws -> [CheckoutID] {
        try rows.map { row in
                let text: String = try row.get(0)
                guard let id = CheckoutID(text) else { throw CatalogDataError(description: "checkout id \(text)") }
                return id
            }
    }

    /// The lines a checkout holds now (empty unless it is `reserved`).
    static func reservation(_ handle: any StorageHandle, _ checkout: CheckoutID) throws -> [StockLine] {
        try handle.query("""
            SELECT product_id, quantity FROM stock_reservations WHERE checkout_id = ? ORDER BY product_id
            """, checkout.description).map { row in
            let text: String = try row.get(0)
            guard let id = ProductID(text) else { throw CatalogDataError(description: "reservation names product \(text)") }
            return StockLine(productID: id, quantity: try row.get(1))
        }
    }

    // MARK: Returns

    /// Puts `lines` back in stock once per `key`: a key already applied is a
    /// no-op (`[]`). An unknown product → `product_not_found`, nothing applied.
    /// With `checkout` (the order's), only what that checkout holds comes
    /// back: a committed checkout's `lines`; a still reserved one's
    /// reservation (released); a released one's nothing (its stock came
    /// back when it was released: returning it again would invent stock).
    static func returnStock(_ handle: any StorageHandle, key: String, lines: [StockLine],
                            checkout: CheckoutID?) throws -> [WrittenProduct] {
        let recorded = try handle.execute("""
            INSERT INTO stock_returns(return_key, units, created_at) VALUES(?, ?, \(CatalogSchema.now(handle.dialect)))
            ON CONFLICT(return_key) DO NOTHING
            """, key, lines.reduce(0) { $0 + $1.quantity })
        if recorded == 0 { return [] }
        if let checkout {
            switch try status(handle, checkout, locking: true) {
            case "released": return []
            case "reserved": return try release(handle, checkout)
            default: break
            }
        }
        var changed: [WrittenProduct] = []
        for line in lines {
            guard let restocked = try restock(handle, line.productID, by: line.quantity, requireProduct: true) else {
                continue
            }
            changed.append(restocked)
        }
        return changed
    }

    // MARK: Helpers

    /// Adds `quantity` to a product's stock by one conditional update on the
    /// row as it is when the update runs; `nil` when nothing changed. Units
    /// that would take the stock past its maximum are never dropped: the
    /// whole write fails with `stock_limit_exceeded` and nothing of it
    /// stays, so the release or return is repeated by recovery (and logged)
    /// until an admin makes room.
    private static func restock(_ handle: any StorageHandle, _ id: ProductID, by quantity: Int,
                                requireProduct: Bool = false) throws -> WrittenProduct? {
        guard quantity > 0 else { return nil }
        let maximum = Product.stockRange.upperBound
        if let restocked = try handle.queryOne("""
            UPDATE products SET stock = stock + ?, version = version + 1, updated_at = \(CatalogSchema.now(handle.dialect))
            WHERE id = ? AND stock <= ?
            RETURNING \(columns)
            """, quantity, id.description, maximum - quantity).map(decode) {
            return WrittenProduct(row: restocked, stockBefore: restocked.product.stock - quantity)
        }
        guard let current = try fetch(handle, id) else {
            if requireProduct { throw EntityError.notFound(entity: "product", id: id.description) }
            throw CatalogDataError(description: "reserved product \(id) is missing")
        }
        throw CatalogError.stockLimitExceeded(productID: id, returned: quantity, stock: current.product.stock)
    }

    private static func status(_ handle: any StorageHandle, _ checkout: CheckoutID, locking: Bool) throws -> String? {
        try handle.queryOne("SELECT status FROM stock_checkouts WHERE checkout_id = ?\(lock(handle, locking))",
                            checkout.description).map { try $0.get(0) }
    }

    /// `FOR UPDATE` on PostgreSQL when `locking`: a read-then-write holds
    /// the row against other processes (READ COMMITTED would let two of
    /// them read the same status or version and both act on it).
    private static func lock(_ handle: any StorageHandle, _ locking: Bool) -> String {
        locking && handle.dialect == .postgres ? " FOR UPDATE" : ""
    }

    private static func setStatus(_ handle: any StorageHandle, _ checkout: CheckoutID, _ status: String) throws {
        try handle.enqueue("UPDATE stock_checkouts SET status = ?, updated_at = \(CatalogSchema.now(handle.dialect)) WHERE checkout_id = ?",
                           status, checkout.description)
    }

    static func decode(_ row: StorageRow) throws -> VersionedProduct {
        let idText: String = try row.get(0)
        guard let id = ProductID(idText) else { throw CatalogDataError(description: "product id \(idText)") }
        let currencyCode: String = try row.get(5)
        guard Currency.check(currencyCode) == nil, let currency = try? Currency(currencyCode) else {
            throw CatalogDataError(description: "product \(idText) has currency \(currencyCode)")
        }
        let product = Product(id: id, sku: try row.get(1), name: try row.get(2), description: try row.get(3),
                              price: Money(amount: try row.get(4), currency: currency), stock: try row.get(6),
                              active: try row.get(7), lowStockThreshold: try row.get(9))
        return VersionedProduct(product: product, version: try row.get(8))
    }
}

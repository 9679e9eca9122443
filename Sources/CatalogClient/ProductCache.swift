import Domain

/// The catalogue's working set: at most `capacity` products read or written
/// recently, each with its committed row version, evicted by CLOCK (a hit
/// only sets a flag, so a read stays a lock and a lookup; an LRU list would
/// relink nodes on every hit). Lives behind the client's lock; SQLite holds
/// every product, this holds what was asked for lately.
///
/// ## Never older than storage's last commit it was told of
/// Rows arrive in two ways, both possibly late: a miss's read (`fill`) and a
/// commit (`applyCommitted`), and either may land after a newer version was
/// committed. A cached entry keeps its version, so a late row for it is
/// refused. The risk is an entry that is *not* cached: a newer version was
/// applied and then evicted (or arrived while the product was not cached),
/// and a row read before that lands now. So every arrival names the
/// `generation` (count of applied commits) it started at, and the cache
/// remembers `forgottenAt`, the newest generation whose commit it no longer
/// holds: an uncached row that started before it is returned to its caller
/// (it was true when it was read) but not kept.
struct ProductCache: Sendable {
    private struct Entry: Sendable {
        var product: Product
        var version: Int64
        /// The generation of the commit that set this entry; 0 when a read
        /// filled it (a read knows nothing that a commit still to be applied
        /// will not bring).
        var stamp: UInt64
        var referenced: Bool
    }

    let capacity: Int
    private var entries: [Entry] = []
    private var slots: [ProductID: Int] = [:]
    private var hand = 0
    /// Commits applied so far.
    private(set) var generation: UInt64 = 0
    private var forgottenAt: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { entries.count }

    /// The cached product, marking it as recently used.
    mutating func lookup(_ id: ProductID) -> Product? {
        guard let slot = slots[id] else { return nil }
        entries[slot].referenced = true
        return entries[slot].product
    }

    /// Every cached product (for `state`).
    var products: [Product] { entries.map(\.product) }

    /// Keeps a row read from storage by a read that began at `started`;
    /// returns the newest product known (the cached one when it is newer).
    mutating func fill(_ row: VersionedProduct, startedAt started: UInt64) -> Product {
        if let slot = slots[row.product.id] {
            if row.version > entries[slot].version {
                entries[slot].product = row.product
                entries[slot].version = row.version
            }
            entries[slot].referenced = true
            return entries[slot].product
        }
        if forgottenAt <= started {
            insert(Entry(product: row.product, version: row.version, stamp: 0, referenced: false))
        }
        return row.product
    }

    /// Applies a committed row of a write that began at `started`. Returns
    /// false when a newer version is already cached (the row is history and
    /// must not be published as the current product).
    mutating func applyCommitted(_ row: VersionedProduct, startedAt started: UInt64) -> Bool {
        generation += 1
        if let slot = slots[row.product.id] {
            guard row.version > entries[slot].version else { return false }
            entries[slot] = Entry(product: row.product, version: row.version, stamp: generation, referenced: true)
            return true
        }
        if forgottenAt <= started {
            insert(Entry(product: row.product, version: row.version, stamp: generation, referenced: false))
        } else {
            forgottenAt = generation
        }
        return true
    }

    private mutating func insert(_ entry: Entry) {
        if entries.count < capacity {
            slots[entry.product.id] = entries.count
            entries.append(entry)
            return
        }
        // CLOCK: clear flags until an entry not used since the hand last passed.
        while entries[hand].referenced {
            entries[hand].referenced = false
            hand = (hand + 1) % capacity
        }
        let victim = entries[hand]
        forgottenAt = max(forgottenAt, victim.stamp)
        slots[victim.product.id] = nil
        slots[entry.product.id] = hand
        entries[hand] = entry
        hand = (hand + 1) % capacity
    }
}

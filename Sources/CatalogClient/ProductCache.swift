import Axiom
import Domain

/// The catalogue's working set: at most `capacity` products read or written
/// recently, each with its committed row version, evicted by CLOCK (a hit
/// only sets a flag, so a read stays a lock and a lookup; an LRU list would
/// relink nodes on every hit); once full, a product read from storage is
/// kept on its second read only (`WorkingSet.admit`). One shard of
/// `ProductCacheShards`, behind its lock; storage holds every product, this
/// holds what was asked for lately.
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
    }

    private var entries: WorkingSet<ProductID, Entry>
    /// Commits applied so far.
    private(set) var generation: UInt64 = 0
    private var forgottenAt: UInt64 = 0

    init(capacity: Int) {
        entries = WorkingSet(capacity: capacity)
    }

    var capacity: Int { entries.capacity }
    var usage: WorkingSetUsage { entries.usage("products") }
    var count: Int { entries.count }

    /// The cached product, marking it as recently used.
    mutating func lookup(_ id: ProductID) -> Product? {
        entries.lookup(id)?.product
    }

    /// Every cached product (for `state`).
    var products: [Product] { entries.values.map(\.product) }

    /// Keeps a row read from storage by a read that began at `started`;
    /// returns the newest product known (the cached one when it is newer).
    mutating func fill(_ row: VersionedProduct, startedAt started: UInt64) -> Product {
        if var cached = entries.recheck(row.product.id) {
            if row.version > cached.version {
                cached.product = row.product
                cached.version = row.version
                entries.store(cached, for: row.product.id)
            }
            return cached.product
        }
        // Admitted, not stored: a product read once while the set is full
        // does not displace one read often (`WorkingSet.admit`). A read
        // carries no commit, so turning it away forgets nothing.
        if forgottenAt <= started {
            insert(Entry(product: row.product, version: row.version, stamp: 0), admitting: true)
        }
        return row.product
    }

    /// Applies a committed row of a write that began at `started`. Returns
    /// false when a newer version is already cached (the row is history and
    /// must not be published as the current product).
    mutating func applyCommitted(_ row: VersionedProduct, startedAt started: UInt64) -> Bool {
        generation += 1
        if let cached = entries.peek(row.product.id) {
            guard row.version > cached.version else { return false }
            entries.store(Entry(product: row.product, version: row.version, stamp: generation), for: row.product.id)
            return true
        }
        if forgottenAt <= started {
            insert(Entry(product: row.product, version: row.version, stamp: generation))
        } else {
            forgottenAt = generation
        }
        return true
    }

    /// Forgets a product another replica changed; a read that began before
    /// this (it may hold the old row) does not keep what it read.
    mutating func forget(_ id: ProductID) {
        generation += 1
        entries.remove(id)
        forgottenAt = generation
    }

    /// A product not cached yet (`admitting`: a read's, kept only if it
    /// earned a place); an evicted entry's commit is one the cache no
    /// longer holds.
    private mutating func insert(_ entry: Entry, admitting: Bool = false) {
        let id = entry.product.id
        let victim = admitting ? entries.admit(entry, for: id).evicted : entries.store(entry, for: id)
        if let victim { forgottenAt = max(forgottenAt, victim.stamp) }
    }
}

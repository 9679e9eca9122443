import Axiom
import Domain

/// The catalogue's working set split by product id, each shard a
/// `ProductCache` behind its own lock with its share of the capacity: every
/// product read and every cart priced looks products up here, from every
/// event loop. A product lives in one shard, so each shard's generation
/// guards its own products exactly as one cache's would; an operation over
/// several products notes every shard's generation when it starts (`Start`).
final class ProductCacheShards: Sendable {
    /// The shards' generations when a read or a write began.
    struct Start: Sendable {
        fileprivate let generations: [UInt64]
    }

    private let shards: LockShards<ProductCache>
    let capacity: Int

    /// `capacity`: products kept in all; one shard per 256 of them, at most 16.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        let count = max(1, min(16, self.capacity / 256))
        let each = (self.capacity + count - 1) / count
        shards = LockShards(count: count) { ProductCache(capacity: each) }
    }

    func start() -> Start {
        Start(generations: shards.map { $0.generation })
    }

    /// The start of an operation on `id` alone: one lock, not every shard's.
    func start(of id: ProductID) -> Start {
        let index = shards.index(of: id)
        var generations = [UInt64](repeating: 0, count: shards.count)
        generations[index] = shards.withLock(at: index) { $0.generation }
        return Start(generations: generations)
    }

    func lookup(_ id: ProductID) -> Product? {
        shards.withLock(for: id) { $0.lookup(id) }
    }

    /// Rows read from storage by a read that began at `started`; the newest
    /// product known for each (`ProductCache.fill`).
    func fill(_ rows: [VersionedProduct], startedAt started: Start) -> [Product] {
        rows.map { row in
            let index = shards.index(of: row.product.id)
            return shards.withLock(at: index) { $0.fill(row, startedAt: started.generations[index]) }
        }
    }

    /// Committed rows of a write that began at `started`; the products
    /// among them that are current (`ProductCache.applyCommitted`).
    func applyCommitted(_ rows: [VersionedProduct], startedAt started: Start) -> [Product] {
        rows.filter { row in
            let index = shards.index(of: row.product.id)
            return shards.withLock(at: index) { $0.applyCommitted(row, startedAt: started.generations[index]) }
        }.map(\.product)
    }

    func forget(_ id: ProductID) {
        shards.withLock(for: id) { $0.forget(id) }
    }

    func forgetAll() {
        _ = shards.map { cache in
            for id in cache.products.map(\.id) { cache.forget(id) }
        }
    }

    var products: [Product] { shards.map { $0.products }.flatMap { $0 } }

    var count: Int { shards.map(\.count).reduce(0, +) }

    var usage: WorkingSetUsage { WorkingSetUsage(name: "products", summing: shards.map { $0.usage }, capacity: capacity) }
}

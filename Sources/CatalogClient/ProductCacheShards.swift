import Axiom
import Domain
import Synchronization

/// The catalogue's working set split by product id, each shard a
/// `ProductCache` behind its own lock with its share of the capacity: every
/// product read and every cart priced looks products up here, from every
/// event loop. A product lives in one shard, so each shard's generation
/// guards its own products exactly as one cache's would; an operation over
/// several products notes every shard's generation when it starts (`Start`).
final class ProductCacheShards: Sendable {
    private final class Shard: Sendable {
        let cache: Mutex<ProductCache>
        init(capacity: Int) { cache = Mutex(ProductCache(capacity: capacity)) }
    }

    /// The shards' generations when a read or a write began.
    struct Start: Sendable {
        fileprivate let generations: [UInt64]
    }

    private let shards: [Shard]
    let capacity: Int

    /// `capacity`: products kept in all; one shard per 256 of them, at most 16.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        let count = max(1, min(16, self.capacity / 256))
        let each = (self.capacity + count - 1) / count
        shards = (0..<count).map { _ in Shard(capacity: each) }
    }

    func start() -> Start {
        Start(generations: shards.map { shard in shard.cache.withLock { $0.generation } })
    }

    /// The start of an operation on `id` alone: one lock, not every shard's.
    func start(of id: ProductID) -> Start {
        let index = shardIndex(id)
        var generations = [UInt64](repeating: 0, count: shards.count)
        generations[index] = shards[index].cache.withLock { $0.generation }
        return Start(generations: generations)
    }

    func lookup(_ id: ProductID) -> Product? {
        shards[shardIndex(id)].cache.withLock { $0.lookup(id) }
    }

    /// Rows read from storage by a read that began at `started`; the newest
    /// product known for each (`ProductCache.fill`).
    func fill(_ rows: [VersionedProduct], startedAt started: Start) -> [Product] {
        rows.map { row in
            let index = shardIndex(row.product.id)
            return shards[index].cache.withLock { $0.fill(row, startedAt: started.generations[index]) }
        }
    }

    /// Committed rows of a write that began at `started`; the products
    /// among them that are current (`ProductCache.applyCommitted`).
    func applyCommitted(_ rows: [VersionedProduct], startedAt started: Start) -> [Product] {
        rows.filter { row in
            let index = shardIndex(row.product.id)
            return shards[index].cache.withLock { $0.applyCommitted(row, startedAt: started.generations[index]) }
        }.map(\.product)
    }

    func forget(_ id: ProductID) {
        shards[shardIndex(id)].cache.withLock { $0.forget(id) }
    }

    func forgetAll() {
        for shard in shards {
            shard.cache.withLock { cache in
                for id in cache.products.map(\.id) { cache.forget(id) }
            }
        }
    }

    var products: [Product] { shards.flatMap { shard in shard.cache.withLock { $0.products } } }

    var count: Int { shards.reduce(0) { $0 + $1.cache.withLock { $0.count } } }

    var usage: WorkingSetUsage {
        let parts = shards.map { shard in shard.cache.withLock { $0.usage } }
        return WorkingSetUsage(name: "products", entries: parts.reduce(0) { $0 + $1.entries }, capacity: capacity,
                               hits: parts.reduce(0) { $0 + $1.hits }, misses: parts.reduce(0) { $0 + $1.misses })
    }

    private func shardIndex(_ id: ProductID) -> Int {
        shards.count == 1 ? 0 : Int(UInt(bitPattern: id.hashValue) % UInt(shards.count))
    }
}

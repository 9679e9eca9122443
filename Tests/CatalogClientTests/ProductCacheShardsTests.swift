@testable import CatalogClient
import Domain
import Foundation
import Testing

/// The working set split by product id: the bound holds over every shard,
/// and each product's late rows are judged by its own shard's generation.
@Suite("ProductCacheShards: the bound and late rows across shards")
struct ProductCacheShardsTests {
    private func row(_ id: ProductID, version: Int64, stock: Int = 1) -> VersionedProduct {
        VersionedProduct(product: Product(id: id, sku: "S-\(version)", name: "P", description: "", price: usd(1),
                                          stock: stock, active: true),
                         version: version)
    }

    @Test("many more products than the capacity: at most the capacity is kept, and what is kept is found")
    func boundHolds() {
        let shards = ProductCacheShards(capacity: 4_096)
        let ids = (0..<6_000).map { _ in ProductID(UUID()) }
        for id in ids { _ = shards.fill([row(id, version: 1)], startedAt: shards.start(of: id)) }
        #expect(shards.count <= 4_096)
        #expect(shards.count > 3_000)
        #expect(shards.usage.capacity == 4_096)
        let kept = shards.products
        #expect(kept.count == shards.count)
        #expect(kept.allSatisfy { shards.lookup($0.id) == $0 })
    }

    @Test("a read that began before a product was forgotten is answered but not kept; one that began after is kept")
    func lateReadAcrossShards() {
        let shards = ProductCacheShards(capacity: 4_096)
        let products = (0..<64).map { _ in ProductID(UUID()) }
        let target = products[0]
        // A write over many products, so over many shards, started before any read.
        let writeStarted = shards.start()
        let committed = shards.applyCommitted(products.map { row($0, version: 2, stock: 2) }, startedAt: writeStarted)
        #expect(committed.count == products.count)
        let readStarted = shards.start()
        shards.forget(target)                        // another replica changed it
        let late = shards.fill([row(target, version: 1, stock: 1)], startedAt: readStarted)
        #expect(late.map(\.stock) == [1])            // answered as read
        #expect(shards.lookup(target) == nil)        // not kept: it may be older than the change
        let fresh = shards.fill([row(target, version: 3, stock: 3)], startedAt: shards.start(of: target))
        #expect(fresh.map(\.stock) == [3])
        #expect(shards.lookup(target)?.stock == 3)
        // The other products' shards were not disturbed.
        #expect(products.dropFirst().allSatisfy { shards.lookup($0)?.stock == 2 })
        // A commit older than what is kept is history, not the current product.
        #expect(shards.applyCommitted([row(target, version: 2, stock: 9)], startedAt: shards.start()).isEmpty)
        shards.forgetAll()
        #expect(shards.count == 0)
    }
}

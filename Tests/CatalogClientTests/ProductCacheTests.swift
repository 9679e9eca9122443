@testable import CatalogClient
import Domain
import Foundation
import Testing

/// The working set's rules without storage: rows arrive late and out of
/// order here by construction. A full set keeps a product read from storage
/// on its second read only (`WorkingSet.admit`), so a read meant to evict
/// is made twice (`keptFill`).
@Suite("ProductCache: CLOCK eviction, admission and late rows")
struct ProductCacheTests {
    private func row(_ id: ProductID, version: Int64, stock: Int = 1) -> VersionedProduct {
        VersionedProduct(product: Product(id: id, sku: "S-\(version)", name: "P", description: "", price: usd(1),
                                          stock: stock, active: true),
                         version: version)
    }

    /// `fill` as a product's second read, which a full set keeps.
    @discardableResult
    private func keptFill(_ cache: inout ProductCache, _ row: VersionedProduct, startedAt started: UInt64) -> Product {
        _ = cache.fill(row, startedAt: started)
        return cache.fill(row, startedAt: started)
    }

    @Test("a late read of a product whose newer commit was evicted is returned but not kept")
    func lateReadAfterEviction() {
        var cache = ProductCache(capacity: 1)
        let a = ProductID(UUID()), b = ProductID(UUID())
        let readStarted = cache.generation
        let check1 = cache.applyCommitted(row(a, version: 2, stock: 2), startedAt: cache.generation)
        #expect(check1)
        keptFill(&cache, row(b, version: 1), startedAt: cache.generation) // evicts a's commit
        let check2 = cache.lookup(a) == nil
        #expect(check2)
        let check3 = cache.fill(row(a, version: 1, stock: 1), startedAt: readStarted).stock == 1
        #expect(check3)
        let check4 = cache.lookup(a) == nil
        #expect(check4)
        keptFill(&cache, row(a, version: 2, stock: 2), startedAt: cache.generation)
        let check5 = cache.lookup(a)?.stock == 2
        #expect(check5)
    }

    @Test("a late commit never replaces a newer cached version, and is not to be published")
    func lateCommit() {
        var cache = ProductCache(capacity: 4)
        let a = ProductID(UUID())
        let started = cache.generation
        let check6 = cache.applyCommitted(row(a, version: 3, stock: 3), startedAt: started)
        #expect(check6)
        let check7 = !cache.applyCommitted(row(a, version: 2, stock: 2), startedAt: started)
        #expect(check7)
        let check8 = cache.fill(row(a, version: 1), startedAt: started).stock == 3
        #expect(check8)
        let check9 = cache.lookup(a)?.stock == 3
        #expect(check9)
    }

    @Test("a commit that cannot be kept makes reads begun before it unkeepable")
    func commitNotKept() {
        var cache = ProductCache(capacity: 1)
        let a = ProductID(UUID()), b = ProductID(UUID()), c = ProductID(UUID())
        let writeOfBStarted = cache.generation
        _ = cache.applyCommitted(row(a, version: 1), startedAt: cache.generation)
        keptFill(&cache, row(c, version: 1), startedAt: cache.generation) // evicts a's commit
        let readOfBStarted = cache.generation
        let check10 = cache.applyCommitted(row(b, version: 2, stock: 2), startedAt: writeOfBStarted)
        #expect(check10)
        let check11 = cache.lookup(b) == nil
        #expect(check11)
        let check12 = cache.fill(row(b, version: 1, stock: 1), startedAt: readOfBStarted).stock == 1
        #expect(check12)
        let check13 = cache.lookup(b) == nil
        #expect(check13)
        keptFill(&cache, row(b, version: 2, stock: 2), startedAt: cache.generation)
        let check14 = cache.lookup(b)?.stock == 2
        #expect(check14)
    }

    @Test("CLOCK: an entry read since the hand last passed survives; the bound holds")
    func clock() {
        var cache = ProductCache(capacity: 2)
        let a = ProductID(UUID()), b = ProductID(UUID()), c = ProductID(UUID())
        _ = cache.fill(row(a, version: 1), startedAt: 0)
        _ = cache.fill(row(b, version: 1), startedAt: 0)
        let check15 = cache.lookup(a) != nil
        #expect(check15)
        keptFill(&cache, row(c, version: 1), startedAt: 0)
        let check16 = cache.count == 2
        #expect(check16)
        let check17 = cache.lookup(a) != nil && cache.lookup(c) != nil
        #expect(check17)
        let check18 = cache.lookup(b) == nil
        #expect(check18)
    }

    @Test("a full set keeps a product on its second read; a crawl of products read once leaves it alone")
    func admission() {
        var cache = ProductCache(capacity: 100)
        let held = (0..<100).map { _ in ProductID(UUID()) }
        for id in held { _ = cache.fill(row(id, version: 1), startedAt: 0) }
        for _ in 0..<1_000 { _ = cache.fill(row(ProductID(UUID()), version: 1), startedAt: 0) }
        // Without admission the crawl evicts all 100 (none was read since
        // its fill). A Bloom filter's false positive may let a crawled
        // product in: about 3 of the 1,000 are expected to (20 or more:
        // Poisson, under one in a billion).
        let survivors = held.filter { cache.lookup($0) != nil }.count
        #expect(survivors >= 80, "\(survivors) of 100 survived the crawl")
        let c = ProductID(UUID())
        let first = cache.fill(row(c, version: 1, stock: 7), startedAt: 0)
        #expect(first.stock == 7, "a product turned away is still the answer")
        _ = cache.fill(row(c, version: 1, stock: 7), startedAt: 0)
        let keptOnSecond = cache.lookup(c)?.stock == 7 && cache.count == 100
        #expect(keptOnSecond)
    }
}

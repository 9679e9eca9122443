@testable import CatalogClient
import Domain
import Foundation
import Testing

/// The working set's rules without storage: rows arrive late and out of
/// order here by construction.
@Suite("ProductCache: CLOCK eviction and late rows")
struct ProductCacheTests {
    private func row(_ id: ProductID, version: Int64, stock: Int = 1) -> VersionedProduct {
        VersionedProduct(product: Product(id: id, sku: "S-\(version)", name: "P", description: "", price: usd(1),
                                          stock: stock, active: true),
                         version: version)
    }

    @Test("a late read of a product whose newer commit was evicted is returned but not kept")
    func lateReadAfterEviction() {
        var cache = ProductCache(capacity: 1)
        let a = ProductID(UUID()), b = ProductID(UUID())
        let readStarted = cache.generation
        let check1 = cache.applyCommitted(row(a, version: 2, stock: 2), startedAt: cache.generation)
        #expect(check1)
        _ = cache.fill(row(b, version: 1), startedAt: cache.generation) // evicts a's commit
        let check2 = cache.lookup(a) == nil
        #expect(check2)
        let check3 = cache.fill(row(a, version: 1, stock: 1), startedAt: readStarted).stock == 1
        #expect(check3)
        let check4 = cache.lookup(a) == nil
        #expect(check4)
        _ = cache.fill(row(a, version: 2, stock: 2), startedAt: cache.generation)
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
        _ = cache.fill(row(c, version: 1), startedAt: cache.generation) // evicts a's commit
        let readOfBStarted = cache.generation
        let check10 = cache.applyCommitted(row(b, version: 2, stock: 2), startedAt: writeOfBStarted)
        #expect(check10)
        let check11 = cache.lookup(b) == nil
        #expect(check11)
        let check12 = cache.fill(row(b, version: 1, stock: 1), startedAt: readOfBStarted).stock == 1
        #expect(check12)
        let check13 = cache.lookup(b) == nil
        #expect(check13)
        _ = cache.fill(row(b, version: 2, stock: 2), startedAt: cache.generation)
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
        _ = cache.fill(row(c, version: 1), startedAt: 0)
        let check16 = cache.count == 2
        #expect(check16)
        let check17 = cache.lookup(a) != nil && cache.lookup(c) != nil
        #expect(check17)
        let check18 = cache.lookup(b) == nil
        #expect(check18)
    }
}

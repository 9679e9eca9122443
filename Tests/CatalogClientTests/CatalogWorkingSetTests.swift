import Axiom
import AxiomTestSupport
import Capabilities
@testable import CatalogClient
import Domain
import Foundation
import Testing

@Suite("CatalogClient working set: bounded memory, SQLite behind it", .serialized)
struct CatalogWorkingSetTests {
    @Test("the working set never holds more than cacheEntries; every product still reads back", arguments: StorageBackend.all)
    func bound(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend, cacheEntries: 4) { run in
            let client = run.client
            var products: [Product] = []
            for index in 0 ..< 12 { products.append(try await client.create(draft("B-\(index)"))) }
            #expect(client.cachedCount == 4)
            for product in products.reversed() + products {
                #expect(try await client.product(product.id) == product)
                #expect(client.cachedCount <= 4)
            }
            #expect(client.state.count == 4)
            let priced = try await client.lookup(products.map(\.id))
            #expect(priced.count == 12 && client.cachedCount == 4)
        }
    }

    @Test("a product changed while evicted is read fresh: changed by the client, and by another writer of the file", arguments: StorageBackend.all)
    func freshAfterEviction(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend, cacheEntries: 2) { run in
            let client = run.client
            let first = try await client.create(draft("E-A", stock: 10))
            var filler = 0
            func evict(_ id: ProductID) async throws {
                // `state` looks without counting as a use (a lookup would mark
                // the entry and CLOCK would keep it).
                while client.state.product(id) != nil && filler < 20 {
                    _ = try await client.create(draft("E-F\(filler)"))
                    filler += 1
                }
                #expect(client.state.product(id) == nil)
            }
            try await evict(first.id)
            let renamed = try await client.update(first.id, ProductPatch(name: "Renamed", stock: 3))
            try await evict(first.id)
            #expect(try await client.product(first.id) == renamed)

            try await evict(first.id)
            _ = try await run.database.writeTransaction { handle in
                try handle.execute("UPDATE products SET stock = 7, version = version + 1 WHERE id = ?", first.id.description)
            }
            #expect(try await client.product(first.id).stock == 7)
            // Writes after an outside change still apply on the stored row.
            _ = try await client.reserve(CheckoutID(UUID()), [StockLine(productID: first.id, quantity: 2)])
            #expect(try await client.product(first.id).stock == 5)
        }
    }

    @Test("restart on a seeded file of 3000: nothing loaded at start-up; reads, the list and search served from SQLite", arguments: StorageBackend.all)
    func seededRestart(backend: StorageBackend) async throws {
        let directory = try await CatalogDatabase(backend)
        let ids = try await seedProducts(directory, count: 3_000)
        try await withCatalog(directory, cacheEntries: 100) { run in
            let client = run.client
            #expect(client.cachedCount == 0)
            for (index, id) in ids.enumerated().prefix(300) {
                #expect(try await client.product(id).name == "Seeded \(String(index + 100_000).dropFirst())")
            }
            #expect(client.cachedCount == 100)
            var listed: [Product] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await client.products(ProductQuery(limit: 100, cursor: cursor))
                listed += page.items
                cursor = page.nextCursor
                pages += 1
            } while cursor != nil && pages < 40
            #expect(pages == 30 && listed.map(\.id) == ids)
            let found = try await client.products(ProductQuery(text: "02999"))
            #expect(found.items.map(\.id) == [ids[2_999]])
            #expect(client.cachedCount == 100)
        }
    }

    @Test("rows written before migration 202 get their folded name and search entry at the first start after it", arguments: StorageBackend.all)
    func migrationBackfill(backend: StorageBackend) async throws {
        let directory = try await CatalogDatabase(backend)
        let ids = try await seedProducts(directory, count: 50,
                                         migrations: CatalogClient.migrations.filter { $0.version < 202 })
        try await withCatalog(directory) { run in
            let client = run.client
            #expect(try await client.products(ProductQuery(limit: 100)).items.map(\.id) == ids)
            #expect(try await client.products(ProductQuery(text: "seeded", limit: 100)).items.count == 50)
            #expect(try await client.products(ProductQuery(text: "00042")).items.map(\.id) == [ids[42]])
            let unfolded = try await run.database.readTransaction { handle in
                try handle.queryOne("SELECT count(*) FROM products WHERE name_folded IS NULL")?.get(0, as: Int.self)
            }
            #expect(unfolded == 0)
        }
    }

    @Test("80 concurrent reservations over 4 products of stock 5 with a working set of 1: exactly 20 succeed, none oversold", arguments: StorageBackend.all)
    func reservationsWhileEvicting(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend, cacheEntries: 1) { run in
            let client = run.client
            var products: [Product] = []
            for index in 0 ..< 4 { products.append(try await client.create(draft("OS-\(index)", stock: 5))) }
            let targets = products.map(\.id)
            let results = await withTaskGroup(of: Result<[Product], any Error>.self) { group in
                for index in 0 ..< 80 {
                    group.addTask {
                        await attempt {
                            try await client.reserve(CheckoutID(UUID()),
                                                     [StockLine(productID: targets[index % 4], quantity: 1)])
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { (try? $0.get()) != nil }.count == 20)
            for case .failure(let failure) in results {
                #expect((failure as? any Refusal)?.code == "insufficient_stock")
            }
            for id in targets {
                #expect(try await client.product(id).stock == 0)
                let stored = try await run.database.readTransaction { handle in
                    try handle.queryOne("SELECT stock FROM products WHERE id = ?", id.description)?.get(0, as: Int.self)
                }
                #expect(stored == 0)
            }
        }
    }
}

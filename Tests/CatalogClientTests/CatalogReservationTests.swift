import Axiom
import Capabilities
@testable import CatalogClient
import Domain
import AxiomTestSupport
import Foundation
import Testing

@Suite("CatalogClient stock: reservations, returns, restarts", .serialized)
struct CatalogReservationTests {
    @Test("reserve takes every line in one transaction; commit keeps the stock taken and is idempotent", arguments: StorageBackend.all)
    func reserveAndCommit(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let mug = try await client.create(draft("MUG", stock: 5))
            let pen = try await client.create(draft("PEN", stock: 2))
            let checkout = CheckoutID(UUID())
            let after = try await client.reserve(checkout, [
                StockLine(productID: mug.id, quantity: 3), StockLine(productID: pen.id, quantity: 2),
            ])
            #expect(after.map(\.stock) == [2, 0])
            #expect(try await client.lookup(mug.id)?.stock == 2)
            #expect(try await client.lookup(pen.id)?.stock == 0)
            #expect(try await client.pendingReservations() == [checkout])
            #expect(try await client.reservation(checkout) == [
                StockLine(productID: mug.id, quantity: 3), StockLine(productID: pen.id, quantity: 2),
            ].sorted { $0.productID.description < $1.productID.description })

            #expect(try await client.commitReservation(checkout) == 2)
            #expect(try await client.pendingReservations().isEmpty)
            #expect(try await client.reservation(checkout).isEmpty)
            #expect(try await client.lookup(mug.id)?.stock == 2)
            #expect(try await client.commitReservation(checkout) == 0)
            // Release after commit is a no-op: the order owns that stock now.
            #expect(try await client.releaseReservation(checkout).isEmpty)
            #expect(try await client.lookup(mug.id)?.stock == 2)
            #expect(try await client.lookup(pen.id)?.stock == 0)
            // The same checkout cannot reserve twice.
            let again = await domainError {
                _ = try await client.reserve(checkout, [StockLine(productID: mug.id, quantity: 1)])
            }
            #expect(again?.code == "duplicate_checkout_id")
            #expect(try await client.lookup(mug.id)?.stock == 2)
        }
    }

    @Test("release returns the units once; releasing twice or an unknown checkout is a no-op", arguments: StorageBackend.all)
    func release(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let mug = try await client.create(draft("MUG", stock: 5))
            let checkout = CheckoutID(UUID())
            _ = try await client.reserve(checkout, [StockLine(productID: mug.id, quantity: 4)])
            #expect(try await client.lookup(mug.id)?.stock == 1)
            let released = try await client.releaseReservation(checkout)
            #expect(released.map(\.stock) == [5])
            #expect(try await client.lookup(mug.id)?.stock == 5)
            #expect(try await client.releaseReservation(checkout).isEmpty)
            #expect(try await client.releaseReservation(CheckoutID(UUID())).isEmpty)
            #expect(try await client.lookup(mug.id)?.stock == 5)
            #expect(try await client.pendingReservations().isEmpty)
            let commit = await domainError { _ = try await client.commitReservation(checkout) }
            #expect(commit?.code == "reservation_not_found")
            let unknown = await domainError { _ = try await client.commitReservation(CheckoutID(UUID())) }
            #expect(unknown?.code == "reservation_not_found" && unknown?.category == .notFound)
        }
    }

    @Test("a failing line leaves every line untouched, with that line's error", arguments: StorageBackend.all)
    func allOrNothing(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let mug = try await client.create(draft("MUG", stock: 5))
            let pen = try await client.create(draft("PEN", stock: 1))
            let off = try await client.create(draft("OFF", stock: 9, active: false))
            let missing = ProductID(UUID())
            let cases: [(StockLine, String)] = [
                (StockLine(productID: pen.id, quantity: 2), "insufficient_stock"),
                (StockLine(productID: off.id, quantity: 1), "product_inactive"),
                (StockLine(productID: missing, quantity: 1), "product_not_found"),
            ]
            for (line, code) in cases {
                let checkout = CheckoutID(UUID())
                let error = await domainError {
                    _ = try await client.reserve(checkout, [StockLine(productID: mug.id, quantity: 3), line])
                }
                #expect(error?.code == code)
                // Nothing of the failed checkout remains: it may even be retried.
                #expect(try await client.reservation(checkout).isEmpty)
                _ = try await client.reserve(checkout, [StockLine(productID: mug.id, quantity: 1)])
                _ = try await client.releaseReservation(checkout)
            }
            let insufficient = await domainError {
                _ = try await client.reserve(CheckoutID(UUID()), [StockLine(productID: pen.id, quantity: 2)])
            }
            #expect(insufficient == CatalogError.insufficientStock(productID: pen.id, requested: 2, available: 1))
            #expect(try await client.lookup(mug.id)?.stock == 5)
            #expect(try await client.lookup(pen.id)?.stock == 1)
            #expect(try await client.pendingReservations().isEmpty)
            let stored = try await run.database.readTransaction { handle in
                try handle.queryOne("SELECT stock FROM products WHERE id = ?", mug.id.description)?.get(0, as: Int.self)
            }
            #expect(stored == 5)
        }
    }

    @Test("malformed reservation lines are 422 with every line named", arguments: StorageBackend.all)
    func badLines(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let mug = try await client.create(draft("MUG"))
            let empty = await domainError { _ = try await client.reserve(CheckoutID(UUID()), []) }
            #expect(fields(empty) == ["lines"])
            let bad = await domainError {
                _ = try await client.reserve(CheckoutID(UUID()), [
                    StockLine(productID: mug.id, quantity: 0), StockLine(productID: mug.id, quantity: 1),
                ])
            }
            #expect(fields(bad) == ["lines[0].quantity", "lines[1].product_id"])
            let tooMany = (0 ... StockLine.maxLines).map { _ in StockLine(productID: ProductID(UUID()), quantity: 1) }
            #expect(fields(await domainError { _ = try await client.reserve(CheckoutID(UUID()), tooMany) })
                == ["lines"])
            #expect(try await client.lookup(mug.id)?.stock == 10)
        }
    }

    @Test("100 concurrent reservations of stock 10: exactly 10 succeed, 90 insufficient_stock, stock 0", arguments: StorageBackend.all)
    func oversell(backend: StorageBackend) async throws {
        let directory = try await CatalogDatabase(backend)
        let id = try await withCatalog(directory) { run in
            let client = run.client
            let product = try await client.create(draft("HOT", stock: 10))
            let results = await withTaskGroup(of: Result<[Product], any Error>.self) { group in
                for _ in 0 ..< 100 {
                    group.addTask {
                        await attempt {
                            try await client.reserve(CheckoutID(UUID()),
                                                     [StockLine(productID: product.id, quantity: 1)])
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let succeeded = results.filter { (try? $0.get()) != nil }
            #expect(succeeded.count == 10)
            let codes = results.compactMap { result -> String? in
                guard case .failure(let error) = result else { return nil }
                return (error as? any Refusal)?.code ?? "\(error)"
            }
            #expect(codes.count == 90 && codes.allSatisfy { $0 == "insufficient_stock" })
            #expect(try await client.lookup(product.id)?.stock == 0)
            #expect(try await client.pendingReservations().count == 10)
            return product.id
        }
        try await withCatalog(directory) { run in
            #expect(try await run.client.lookup(id)?.stock == 0)
            let pending = try await run.client.pendingReservations()
            #expect(pending.count == 10)
            for checkout in pending { _ = try await run.client.releaseReservation(checkout) }
            #expect(try await run.client.lookup(id)?.stock == 10)
        }
    }

    @Test("returnStock restocks once per key; a retry cannot restock twice", arguments: StorageBackend.all)
    func returnStock(backend: StorageBackend) async throws {
        let directory = try await CatalogDatabase(backend)
        let ids = try await withCatalog(directory) { run in
            let client = run.client
            let mug = try await client.create(draft("MUG", stock: 2))
            let off = try await client.create(draft("OFF", stock: 0, active: false))
            let lines = [StockLine(productID: mug.id, quantity: 3), StockLine(productID: off.id, quantity: 1)]
            let restocked = try await client.returnStock(key: "order-1", lines: lines)
            #expect(restocked.map(\.stock) == [5, 1])
            #expect(try await client.returnStock(key: "order-1", lines: lines).isEmpty)
            #expect(try await client.lookup(mug.id)?.stock == 5)
            #expect(try await client.lookup(off.id)?.stock == 1)

            // A failing return applies nothing and does not use up its key.
            let missing = await domainError {
                _ = try await client.returnStock(key: "order-2", lines: [
                    StockLine(productID: mug.id, quantity: 1), StockLine(productID: ProductID(UUID()), quantity: 1),
                ])
            }
            #expect(missing?.code == "product_not_found")
            #expect(try await client.lookup(mug.id)?.stock == 5)
            _ = try await client.returnStock(key: "order-2", lines: [StockLine(productID: mug.id, quantity: 1)])
            #expect(try await client.lookup(mug.id)?.stock == 6)

            // Concurrent retries of one cancellation restock exactly once.
            try await withThrowingTaskGroup(of: [Product].self) { group in
                for _ in 0 ..< 10 {
                    group.addTask { try await client.returnStock(key: "order-3", lines: [StockLine(productID: mug.id, quantity: 4)]) }
                }
                try await group.waitForAll()
            }
            #expect(try await client.lookup(mug.id)?.stock == 10)

            // Beyond the maximum, nothing is returned (and no unit dropped): an error, the key unused.
            _ = try await client.update(off.id, ProductPatch(stock: Product.stockRange.upperBound - 1))
            let beyond = await domainError {
                _ = try await client.returnStock(key: "order-4", lines: [StockLine(productID: off.id, quantity: 5)])
            }
            #expect(beyond?.code == "stock_limit_exceeded")
            #expect(try await client.lookup(off.id)?.stock == Product.stockRange.upperBound - 1)

            let badKey = await domainError { _ = try await client.returnStock(key: "", lines: []) }
            #expect(fields(badKey) == ["key", "lines"])
            return (mug.id, lines)
        }
        try await withCatalog(directory) { run in
            let retried = try await run.client.returnStock(key: "order-1", lines: ids.1)
            #expect(retried.isEmpty)
            #expect(try await run.client.lookup(ids.0)?.stock == 10)
        }
    }

    @Test("after a restart the products, their stock and pending reservations are all there", arguments: StorageBackend.all)
    func restart(backend: StorageBackend) async throws {
        let directory = try await CatalogDatabase(backend)
        let (before, pendingCheckout, committedCheckout) = try await withCatalog(directory) { run in
            let client = run.client
            var products: [Product] = []
            for index in 0 ..< 20 { products.append(try await client.create(draft("R-\(index)", stock: 10))) }
            let pending = CheckoutID(UUID())
            _ = try await client.reserve(pending, [StockLine(productID: products[0].id, quantity: 4)])
            let committed = CheckoutID(UUID())
            _ = try await client.reserve(committed, [StockLine(productID: products[1].id, quantity: 3)])
            _ = try await client.commitReservation(committed)
            _ = try await client.update(products[2].id, ProductPatch(name: "Renamed", active: false))
            return (client.state.products, pending, committed)
        }
        try await withCatalog(directory) { run in
            let client = run.client
            // Nothing is loaded at start-up; every product reads back as it was.
            #expect(client.cachedCount == 0)
            #expect(try await client.lookup(Array(before.keys)) == before)
            #expect(try await client.pendingReservations() == [pendingCheckout])
            let first = try #require(before.values.first { $0.sku == "R-0" })
            #expect(try await client.lookup(first.id)?.stock == 6)
            // The reconciliation a checkout context does at start-up: release what no order claimed.
            _ = try await client.releaseReservation(pendingCheckout)
            #expect(try await client.lookup(first.id)?.stock == 10)
            #expect(try await client.commitReservation(committedCheckout) == 0)
            // Versions continue where they were: a later change still applies.
            let updated = try await client.update(first.id, ProductPatch(stock: 1))
            #expect(try await client.lookup(first.id) == updated)
        }
    }

    @Test("storage unavailable: writes and misses throw capabilityUnavailable (503), cached reads keep working", arguments: StorageBackend.all)
    func storageUnavailable(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let mug = try await client.create(draft("MUG", stock: 5))
            let expected = AxiomError.capabilityUnavailable(try run.storageName)
            await (try run.database).close()
            await #expect(throws: expected) { _ = try await client.create(draft("NEW")) }
            await #expect(throws: expected) { _ = try await client.update(mug.id, ProductPatch(stock: 1)) }
            await #expect(throws: expected) {
                _ = try await client.reserve(CheckoutID(UUID()), [StockLine(productID: mug.id, quantity: 1)])
            }
            await #expect(throws: expected) { _ = try await client.pendingReservations() }
            // Validation still comes first, without storage.
            #expect(fields(await domainError { _ = try await client.create(draft("bad sku")) }) == ["sku"])
            // A product in the working set is still served; a list needs storage.
            #expect(try await client.lookup(mug.id)?.stock == 5)
            await #expect(throws: expected) { _ = try await client.products(ProductQuery()) }
            await #expect(throws: expected) { _ = try await client.lookup(ProductID(UUID())) }
        }
    }

    @Test("a product priced in another currency than the deployment's refuses activation", arguments: StorageBackend.all)
    func currencyChange(backend: StorageBackend) async throws {
        let directory = try await CatalogDatabase(backend)
        try await withCatalog(directory) { run in _ = try await run.client.create(draft("MUG")) }
        await #expect(throws: AxiomError.self) { try await withCatalog(directory, currency: .eur) { _ in } }
        try await withCatalog(directory) { run in
            let listed = try await run.client.products(ProductQuery())
            #expect(listed.items.count == 1)
        }
    }

    @Test("typed actions through send: the outcome matches the action", arguments: StorageBackend.all)
    func sendOutcomes(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let mug = try await client.create(draft("MUG", stock: 3))
            #expect(try await client.update(mug.id, ProductPatch(price: usd(1))) == (try await client.product(mug.id)))
            let checkout = CheckoutID(UUID())
            let reserved = try await client.reserve(checkout, [StockLine(productID: mug.id, quantity: 1)])
            #expect(reserved == [try await client.product(mug.id)])
            #expect(try await client.commitReservation(checkout) == 1)
            #expect(try await client.releaseReservation(checkout) == [])
            #expect(try await client.returnStock(key: "k", lines: [StockLine(productID: mug.id, quantity: 1)])
                == [try await client.product(mug.id)])
            #expect(try await client.lookup(mug.id)?.stock == 3)
        }
    }
}

@Suite("CatalogClient under concurrency", .serialized)
struct CatalogConcurrencyTests {
    @Test("patches racing reservations never overwrite the stock they did not set", arguments: StorageBackend.all)
    func patchesAndReservations(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let product = try await client.create(draft("RACE", price: 100, stock: 50))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0 ..< 40 {
                    group.addTask {
                        if index % 2 == 0 {
                            _ = try await client.reserve(CheckoutID(UUID()),
                                                         [StockLine(productID: product.id, quantity: 1)])
                        } else {
                            _ = try await client.update(product.id, ProductPatch(name: "Name \(index)", price: usd(Int64(index))))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let final = try await client.product(product.id)
            #expect(final.stock == 30)
            let stored = try await run.database.readTransaction { handle in
                try handle.queryOne("SELECT stock, name FROM products WHERE id = ?", product.id.description)
            }
            #expect(try stored?.get(0, as: Int.self) == 30)
            #expect(try stored?.get(1, as: String.self) == final.name)
        }
    }

    @Test("snapshot readers off the actor see stock only move forward while reservations commit", arguments: StorageBackend.all)
    func snapshotReaders(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let product = try await client.create(draft("HOT", stock: 60))
            async let reservations: Void = withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0 ..< 60 {
                    group.addTask {
                        _ = try await client.reserve(CheckoutID(UUID()),
                                                     [StockLine(productID: product.id, quantity: 1)])
                    }
                }
                try await group.waitForAll()
            }
            let monotonic = await withTaskGroup(of: Bool.self) { group in
                for _ in 0 ..< 4 {
                    group.addTask {
                        var last = Int.max
                        for _ in 0 ..< 2_000 {
                            guard let stock = try? await client.lookup(product.id)?.stock, stock <= last else { return false }
                            last = stock
                            await Task.yield()
                        }
                        return true
                    }
                }
                return await group.allSatisfy { $0 }
            }
            try await reservations
            #expect(monotonic)
            #expect(try await client.lookup(product.id)?.stock == 0)
        }
    }
}

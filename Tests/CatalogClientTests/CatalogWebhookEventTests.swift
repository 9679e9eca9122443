import AxiomTestSupport
import Axiom
import Capabilities
@testable import CatalogClient
import Domain
import Foundation
import Testing

/// The catalogue's webhook events (`CatalogClient(webhooks:)`), each in the
/// transaction of its write: a product created or changed by an admin, and
/// `product.stock_low` once each time a write takes the stock from above
/// the product's threshold to at or below it, whichever write it is.
@Suite struct CatalogWebhookEventTests {
    /// The run's queued events, as "type sku" (with the threshold).
    func enqueued(_ run: CatalogRun, names: [ProductID: String]) async throws -> [String] {
        try await run.webhookEvents().map { event in
            guard case .product(let id) = event.subject else { return "\(event.type.rawValue) not about a product" }
            let threshold = event.threshold.map { " \($0)" } ?? ""
            return "\(event.type.rawValue) \(names[id] ?? id.description)\(threshold)"
        }
    }

    func reserve(_ run: CatalogRun, _ product: Product, _ quantity: Int) async throws -> CheckoutID {
        let checkout = CheckoutID(UUID())
        _ = try await run.client.reserve(checkout, [StockLine(productID: product.id, quantity: quantity)])
        return checkout
    }

    @Test("created and every admin change enqueue their event; a refused or empty change none", arguments: StorageBackend.all)
    func createdAndUpdated(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend, webhooks: true) { run in
            let lamp = try await run.client.create(draft("LAMP"))
            _ = try await run.client.update(lamp.id, ProductPatch(price: usd(2500)))
            _ = try await run.client.update(lamp.id, ProductPatch(active: false))
            _ = try await run.client.update(lamp.id, ProductPatch(lowStockThreshold: .set(3)))
            // Nothing to change, a bad value, a taken SKU: nothing written, nothing enqueued.
            _ = try await run.client.update(lamp.id, ProductPatch(active: false))
            _ = try await run.client.update(lamp.id, ProductPatch())
            let tooHigh = await domainError {
                _ = try await run.client.update(lamp.id, ProductPatch(lowStockThreshold: .set(1_000_001)))
            }
            let negative = await domainError { _ = try await run.client.create(draft("BAD", lowStockThreshold: -1)) }
            #expect(fields(tooHigh) == ["low_stock_threshold"] && fields(negative) == ["low_stock_threshold"])
            let taken = await domainError { _ = try await run.client.create(draft("LAMP")) }
            #expect(taken?.code == "duplicate_sku")
            #expect(try await enqueued(run, names: [lamp.id: "LAMP"])
                    == ["product.created LAMP", "product.updated LAMP", "product.updated LAMP", "product.updated LAMP"])
            #expect(try await run.webhookEvents().allSatisfy { $0.occurredAt == run.clock.millisecondsSince1970() })
        }
    }

    @Test("stock_low fires once per crossing, by a reservation, a retaken checkout or an admin", arguments: StorageBackend.all)
    func stockLowOncePerCrossing(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend, webhooks: true) { run in
            let mug = try await run.client.create(draft("MUG", stock: 10, lowStockThreshold: 5))
            let names = [mug.id: "MUG"]
            // Above → at: fires. Below → lower: does not.
            _ = try await reserve(run, mug, 5)
            #expect(try await enqueued(run, names: names) == ["product.created MUG", "product.stock_low MUG 5"])
            let small = try await reserve(run, mug, 2)
            _ = try await reserve(run, mug, 1)
            #expect(try await run.client.product(mug.id).stock == 2)
            #expect(try await enqueued(run, names: names).count == 2)
            // Back up, not above the threshold, and down again: still the same crossing.
            _ = try await run.client.releaseReservation(small)
            _ = try await reserve(run, mug, 1)
            #expect(try await enqueued(run, names: names).count == 2)
            // Restocked above it, then down again: fires again.
            _ = try await run.client.returnStock(key: "order-1", lines: [StockLine(productID: mug.id, quantity: 10)])
            #expect(try await run.client.product(mug.id).stock == 13)
            _ = try await run.client.update(mug.id, ProductPatch(stock: 4))
            #expect(try await enqueued(run, names: names).suffix(2) == ["product.updated MUG", "product.stock_low MUG 5"])

            // A released checkout whose commit takes its stock again is a crossing too.
            _ = try await run.client.update(mug.id, ProductPatch(stock: 8))
            let late = try await reserve(run, mug, 2)
            _ = try await run.client.releaseReservation(late)
            #expect(try await run.client.commitReservation(late, ordered: [StockLine(productID: mug.id, quantity: 3)])
                    == 1)
            #expect(try await run.client.product(mug.id).stock == 5)
            #expect(try await enqueued(run, names: names).suffix(2) == ["product.updated MUG", "product.stock_low MUG 5"])
            #expect(try await enqueued(run, names: names).filter { $0.hasPrefix("product.stock_low") }.count == 3)
        }
    }

    @Test("a write that is refused enqueues no stock_low, even for a line that would cross", arguments: StorageBackend.all)
    func refusedWritesEnqueueNothing(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend, webhooks: true) { run in
            let cup = try await run.client.create(draft("CUP", stock: 10, lowStockThreshold: 8))
            let pot = try await run.client.create(draft("POT", stock: 1))
            // The cup's line would cross; the pot's is sold out: all or nothing.
            let refused = await domainError {
                _ = try await run.client.reserve(CheckoutID(UUID()), [StockLine(productID: cup.id, quantity: 5),
                                                                      StockLine(productID: pot.id, quantity: 2)])
            }
            #expect(refused?.code == "insufficient_stock")
            // A released checkout's commit takes its lines again: the pot was
            // sold meanwhile, so the cup's crossing line is taken back too.
            let released = CheckoutID(UUID())
            _ = try await run.client.reserve(released, [StockLine(productID: cup.id, quantity: 1),
                                                        StockLine(productID: pot.id, quantity: 1)])
            _ = try await run.client.releaseReservation(released)
            _ = try await reserve(run, pot, 1)
            let soldOut = await domainError {
                _ = try await run.client.commitReservation(released, ordered: [StockLine(productID: cup.id, quantity: 2),
                                                                               StockLine(productID: pot.id, quantity: 1)])
            }
            #expect(soldOut?.code == "insufficient_stock")
            #expect(try await run.client.product(cup.id).stock == 10)
            #expect(try await enqueued(run, names: [cup.id: "CUP", pot.id: "POT"])
                    == ["product.created CUP", "product.created POT"])
        }
    }

    @Test("with webhooks off no write enqueues anything", arguments: StorageBackend.all)
    func webhooksOff(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let bowl = try await run.client.create(draft("BOWL", stock: 3, lowStockThreshold: 2))
            _ = try await reserve(run, bowl, 1)
            _ = try await run.client.update(bowl.id, ProductPatch(name: "Big bowl"))
            #expect(try await run.client.product(bowl.id).stock == 2)
            #expect(try await run.webhookEvents().isEmpty)
        }
    }

    @Test("products stored before the threshold existed read back without one, and take one", arguments: StorageBackend.all)
    func productsFromBeforeTheThreshold(backend: StorageBackend) async throws {
        let database = try await CatalogDatabase(backend)
        let ids = try await seedProducts(database, count: 3, migrations: CatalogClient.migrations.filter { $0.version < 205 })
        try await withCatalog(database) { run in
            for id in ids { #expect(try await run.client.product(id).lowStockThreshold == nil) }
            let page = try await run.client.products(ProductQuery(limit: 10))
            #expect(page.items.count == 3 && page.items.allSatisfy { $0.lowStockThreshold == nil })
            let set = try await run.client.update(ids[0], ProductPatch(lowStockThreshold: .set(0)))
            #expect(set.lowStockThreshold == 0)
            #expect(try await run.client.update(ids[0], ProductPatch(lowStockThreshold: .clear)).lowStockThreshold == nil)
        }
    }
}

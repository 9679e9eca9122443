import AxiomTestSupport
import Axiom
@testable import CatalogClient
import Domain
import Foundation
import Testing

/// A context as a checkout context would hold the catalogue: through the
/// orchestrator's `ClientHandle`, so every action is counted.
actor CatalogProbeContext: Context {
    nonisolated let identity: ContextIdentity
    let catalog: ClientHandle<CatalogClient>

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        catalog = try creation.client(CatalogClient.self)
    }
}

@Suite("CatalogClient through a context", .serialized)
struct CatalogContextTests {
    @Test("a context reaches the catalogue through its handle's call: reserve → commit, a cancel's return, metrics counted", arguments: StorageBackend.all)
    func handleSend(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let context = try await run.orchestrator.createContext(CatalogProbeContext.self, parent: nil)
            let catalog = context.catalog
            let mug = try await catalog.call { try await $0.create(draft("MUG", stock: 4)) }
            let renamed = try await catalog.call { try await $0.update(mug.id, ProductPatch(name: "Big mug")) }
            #expect(renamed == (try await catalog.call { try await $0.product(mug.id) }))
            let checkout = CheckoutID(UUID())
            let after = try await catalog.call { try await $0.reserve(checkout, [StockLine(productID: mug.id, quantity: 3)]) }
            #expect(after.map(\.stock) == [1])
            #expect(try await catalog.call { try await $0.commitReservation(checkout) } == 1)
            #expect(try await catalog.call { try await $0.releaseReservation(checkout) } == [])
            let returned = try await catalog.call { try await $0.returnStock(
                key: "order-9", lines: [StockLine(productID: mug.id, quantity: 3)]) }
            #expect(returned.map(\.stock) == [4])
            await #expect(throws: EntityError.self) { _ = try await catalog.call { try await $0.create(draft("MUG")) } }
            let metrics = try #require(run.orchestrator.clientMetrics().first {
                $0.client == String(reflecting: CatalogClient.self)
            })
            // Seven writes and the read of the product, the refused create among them.
            #expect(metrics.actions == 8 && metrics.errors == 1)
            #expect(catalog.call { $0.state } == run.client.state)
        }
    }
}

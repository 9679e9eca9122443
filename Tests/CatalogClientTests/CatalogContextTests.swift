import Axiom
import CatalogClient
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

    func send(_ action: CatalogAction) async throws -> CatalogOutcome { try await catalog.send(action) }
}

@Suite("CatalogClient through a context", .serialized)
struct CatalogContextTests {
    @Test("the typed handle methods go through send: a checkout's reserve → commit, a cancel's return, metrics counted")
    func typedHandle() async throws {
        try await withCatalog { run in
            let context = try await run.orchestrator.createContext(CatalogProbeContext.self, parent: nil)
            let catalog = context.catalog
            let mug = try await catalog.create(draft("MUG", stock: 4))
            let renamed = try await catalog.update(mug.id, ProductPatch(name: "Big mug"))
            #expect(renamed.name == "Big mug")
            let checkout = CheckoutID(UUID())
            let reserved = try await catalog.reserve(checkoutID: checkout, lines: [StockLine(productID: mug.id, quantity: 3)])
            #expect(reserved.map(\.stock) == [1])
            #expect(try await catalog.commitReservation(checkout) == 1)
            #expect(try await catalog.releaseReservation(checkout).isEmpty)
            #expect(try await catalog.returnStock(key: "order-9", lines: [StockLine(productID: mug.id, quantity: 3)])
                .map(\.stock) == [4])
            await #expect(throws: DomainError.self) { _ = try await catalog.create(draft("MUG")) }
            let metrics = try #require(run.orchestrator.clientMetrics().first {
                $0.client == String(reflecting: CatalogClient.self)
            })
            #expect(metrics.actions == 7 && metrics.errors == 1)
            #expect(await catalog.state == run.client.state)
        }
    }
}

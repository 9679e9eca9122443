import Axiom
import AxiomTestSupport
import Capabilities
import Contexts
import Domain
import Testing

/// Which `Last-Event-ID`s the live-updates context resumes from the change
/// outbox, and which get a reset (`mustRefetch`): a pruned one, one from
/// the outbox's future, one that is no sequence.
@Suite("Live update resume", .serialized)
struct LiveUpdateResumeTests {
    @Test(arguments: StorageBackend.all)
    func prunedFutureAndMalformedIDsAskForARefetch(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            let mug = try await shop.product("MUG", cents: 500, stock: 9)
            let alice = try await shop.customer("Alice")
            let live = try await shop.feature(LiveUpdatesContext.self, of: alice)
            let carts = try await shop.feature(CartContext.self, of: alice)
            let fresh = try await live.liveUpdates(after: nil)
            _ = try await carts.setQuantity(1, of: mug.id)
            let first = try #require(await firstElement(of: fresh.events)?.id)
            _ = try await carts.setQuantity(2, of: mug.id)
            _ = try await carts.setQuantity(3, of: mug.id)

            // Kept: one replay, the cart as it is, with its newest change's id.
            let resumed = try await live.liveUpdates(after: String(first))
            #expect(!resumed.mustRefetch)
            #expect(resumed.replay.count == 1)
            #expect(resumed.replay.first.map { $0.id! > first } == true)
            guard let update = resumed.replay.first?.update, update.kind == CartLiveFeature.kind,
                  let quote = update.payload as? CartQuote else {
                Issue.record("expected the cart, got \(String(describing: resumed.replay.first))")
                return
            }
            #expect(quote.total == Money(amount: 1_500, currency: .usd))
            // Up to date: nothing to replay.
            let upToDate = try await live.liveUpdates(after: String(resumed.replay[0].id!))
            #expect(!upToDate.mustRefetch && upToDate.replay.isEmpty)

            for id in ["not-a-number", "-1", String(first + 1_000_000)] {
                let refused = try await live.liveUpdates(after: id)
                #expect(refused.mustRefetch && refused.replay.isEmpty, "\(id)")
            }
            // Retention pruned the change after `first`: it cannot be told.
            try await Self.storage(shop).writeTransaction { handle in
                _ = try handle.execute("DELETE FROM changes WHERE seq <= ?", first + 1)
            }
            let pruned = try await live.liveUpdates(after: String(first))
            #expect(pruned.mustRefetch && pruned.replay.isEmpty)
        }
    }

    static func storage(_ shop: ShopRun) throws -> any StorageCapability {
        if let sqlite = try? shop.orchestrator.capabilityRegistry.resolve(SQLiteStorage.self) { return sqlite }
        return try shop.orchestrator.capabilityRegistry.resolve(PostgresStorage.self)
    }
}

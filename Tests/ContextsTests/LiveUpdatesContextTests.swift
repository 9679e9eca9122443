import Axiom
import AxiomTestSupport
import Contexts
import Domain
import Testing

@Suite("Live updates context", .serialized) struct LiveUpdatesContextTests {
    @Test("a cart change made in another session arrives priced; sign-out ends the stream", arguments: StorageBackend.all)
    func cartChangeThenSignOut(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            let (mug, alice) = try await shop.mugAndAlice()
            let live = try await shop.feature(LiveUpdatesContext.self, of: alice)
            let subscription = try await live.liveUpdates(after: nil)
            #expect(subscription.replay.isEmpty && !subscription.mustRefetch)
            let phone = try await shop.signIn("alice@example.com")
            _ = try await shop.feature(CartContext.self, of: phone).setQuantity(2, of: mug.id)
            let event = try #require(await firstElement(of: subscription.events))
            guard event.update.kind == CartLiveFeature.kind, let quote = event.update.payload as? CartQuote else {
                Issue.record("expected a cart change, got \(event.update)")
                return
            }
            #expect(quote.total == Money(amount: 2_500, currency: .usd))
            try await shop.feature(ProfileContext.self, of: alice).signOut()
            #expect(await Self.ends(subscription.events))
            await #expect(throws: AuthenticationError.invalidToken) {
                _ = try await live.liveUpdates(after: nil)
            }
        }
    }

    /// Whether `stream` finishes with no further element; false if an
    /// element comes or nothing happens within the hang guard.
    static func ends(_ stream: AsyncFilterSequence<AsyncStream<LiveEvent>>, within limit: Duration = .seconds(10)) async -> Bool {
        await withHangGuard(limit, otherwise: false) {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next() == nil
        }
    }
}

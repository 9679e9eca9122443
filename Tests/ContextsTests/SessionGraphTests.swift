import Axiom
import AxiomTestSupport
import Contexts
import Domain
import Testing

@Suite("A session's context graph", .serialized) struct SessionGraphTests {
    @Test("features are made once, on first use, below the session's root; checkout shares its cart and orders; sign-out releases them all", arguments: StorageBackend.all)
    func lazySharedReleased(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            let (mug, alice) = try await shop.mugAndAlice()
            let registry = shop.orchestrator.contextRegistry
            let before = registry.count
            let root = try await shop.sessions.withSession(SessionID(alice.sessionID)) { $0 }
            #expect(registry.count == before + 1)
            let cart = try await shop.feature(CartContext.self, of: alice)
            #expect(try await shop.feature(CartContext.self, of: alice) === cart)
            _ = try await cart.setQuantity(2, of: mug.id)
            let checkout = try await shop.feature(CheckoutContext.self, of: alice)
            _ = try await checkout.checkout(idempotencyKey: "k1")
            // Checkout reached the session's cart (shared, not a second one).
            #expect(Set(cart.upstreamContexts.map(\.contextID)) == [root.contextID, checkout.contextID])
            // Its key retried, the cart now empty, checkout asks the orders
            // context for the key's order: made on that first use, and the
            // one the session's own request then finds.
            #expect(try await !checkout.checkout(idempotencyKey: "k1").created)
            let orders = try await shop.feature(OrdersContext.self, of: alice)
            #expect(Set(orders.upstreamContexts.map(\.contextID)) == [root.contextID, checkout.contextID])
            #expect(registry.count == before + 4)
            #expect(shop.orchestrator.validate().passed)

            try await shop.feature(ProfileContext.self, of: alice).signOut()
            await shop.sessions.end(SessionID(alice.sessionID))
            #expect(registry.count == before)
            #expect(shop.orchestrator.validate().passed)
        }
    }

    @Test("every session has its own graph; the component graph lists each type's downstream types and live counts", arguments: StorageBackend.all)
    func componentsDescribeTheGraph(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            let alice = try await shop.customer("Alice")
            let bob = try await shop.customer("Bob")
            let aliceCart = try await shop.feature(CartContext.self, of: alice)
            let bobCart = try await shop.feature(CartContext.self, of: bob)
            #expect(aliceCart !== bobCart)
            let components = shop.orchestrator.components
            let session = try #require(components.descriptor(of: String(reflecting: SessionContext.self)))
            #expect(session.downstream == [AccountDeletionContext.self, AdminContext.self, CartContext.self, CheckoutContext.self,
                                           LiveUpdatesContext.self, OrdersContext.self, ProfileContext.self,
                                           WishlistContext.self]
                .map { String(reflecting: $0) })
            #expect(session.instancesLive == 2)
            let checkout = try #require(components.descriptor(of: String(reflecting: CheckoutContext.self)))
            #expect(checkout.downstream == [String(reflecting: CartContext.self), String(reflecting: OrdersContext.self)])
            #expect(checkout.instancesLive == 0)
            #expect(components.descriptor(of: String(reflecting: CartContext.self))?.instancesLive == 2)
        }
    }

    @Test("a context makes only the downstream types it declares (RFC-001 4.2 rule 2)", arguments: StorageBackend.all)
    func undeclaredRefused(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            let alice = try await shop.customer("Alice")
            let cart = try await shop.feature(CartContext.self, of: alice)
            await #expect(throws: AxiomError.undeclaredDownstream(upstream: String(reflecting: CartContext.self),
                                                                  downstream: String(reflecting: OrdersContext.self))) {
                _ = try await cart.downstream(OrdersContext.self)
            }
        }
    }
}

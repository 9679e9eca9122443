import Axiom
import AxiomTestSupport
import Contexts
import Domain
import Testing

@Suite("Cart and checkout contexts", .serialized) struct CartAndCheckoutTests {
    @Test("a cart line is priced from the catalogue; every session of the user sees the same cart", arguments: StorageBackend.all)
    func cartPricedAndShared(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            let (mug, alice) = try await shop.mugAndAlice()
            let quote = try await shop.feature(CartContext.self, of: alice).setQuantity(3, of: mug.id)
            #expect(quote.lines.map(\.quantity) == [3])
            #expect(quote.total == Money(amount: 3_750, currency: .usd))
            let otherSession = try await shop.signIn("alice@example.com")
            #expect(otherSession.sessionID != alice.sessionID)
            #expect(try await shop.feature(CartContext.self, of: otherSession).cart() == quote)
        }
    }

    @Test("a product that is missing or not on sale cannot go into a cart, and nothing is stored", arguments: StorageBackend.all)
    func refusedLines(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            let mug = try await shop.product("MUG", cents: 1_250, stock: 5)
            let admin = try await shop.admin()
            _ = try await shop.feature(AdminContext.self, of: admin).updateProduct(mug.id, ProductPatch(active: false))
            let alice = try await shop.customer("Alice")
            let cart = try await shop.feature(CartContext.self, of: alice)
            // Deactivated: not found, as the storefront answers it.
            await #expect(throws: EntityError.notFound(entity: "product", id: mug.id.description)) {
                _ = try await cart.setQuantity(1, of: mug.id)
            }
            let unknown = try #require(ProductID("00000000-0000-4000-8000-000000000001"))
            await #expect(throws: EntityError.notFound(entity: "product", id: unknown.description)) {
                _ = try await cart.setQuantity(1, of: unknown)
            }
            #expect(try await cart.cart().lines.isEmpty)
        }
    }

    @Test("checkout turns the cart into a pending order awaiting its payment, takes the stock, empties the cart; a retried key answers the same order", arguments: StorageBackend.all)
    func checkoutAllOrNothing(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            let (mug, alice) = try await shop.mugAndAlice()
            let checkout = try await shop.feature(CheckoutContext.self, of: alice)
            await #expect(throws: CartError.emptyCart) { _ = try await checkout.checkout(idempotencyKey: "k1") }
            _ = try await shop.feature(CartContext.self, of: alice).setQuantity(2, of: mug.id)
            let (order, created) = try await checkout.checkout(idempotencyKey: "k1")
            #expect(created)
            #expect(order.order.status == .pending)
            #expect(order.payment?.status == .requiresPayment)
            #expect(order.payment?.amount == order.order.total)
            #expect(order.order.lines.map(\.quantity) == [2])
            #expect(try await shop.storefront.product(mug.id, representedAs: { $0 }).stock == 3)
            #expect(try await shop.feature(CartContext.self, of: alice).cart().lines.isEmpty)
            let (again, createdAgain) = try await checkout.checkout(idempotencyKey: "k1")
            #expect(again.order.id == order.order.id && again.payment?.id == order.payment?.id && !createdAgain)
            #expect(try await shop.storefront.product(mug.id, representedAs: { $0 }).stock == 3)
        }
    }

    @Test("an order is its owner's and the admins': another customer gets not-found; a cancel returns the stock once", arguments: StorageBackend.all)
    func ordersOwnedAndCancelled(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            let (mug, alice) = try await shop.mugAndAlice()
            let bob = try await shop.customer("Bob")
            _ = try await shop.feature(CartContext.self, of: alice).setQuantity(4, of: mug.id)
            let (placed, _) = try await shop.feature(CheckoutContext.self, of: alice).checkout(idempotencyKey: nil)
            let order = placed.order
            let bobsView = try await shop.feature(OrdersContext.self, of: bob)
            await #expect(throws: EntityError.notFound(entity: "order", id: order.id.description)) {
                _ = try await bobsView.order(order.id)
            }
            await #expect(throws: EntityError.self) { _ = try await bobsView.cancelOrder(order.id) }
            #expect(try await shop.storefront.product(mug.id, representedAs: { $0 }).stock == 1)
            let admin = try await shop.admin()
            let cancelled = try await shop.feature(AdminContext.self, of: admin).moveOrder(order.id, to: .cancelled)
            #expect(cancelled.order.status == .cancelled && cancelled.payment?.status == .cancelled)
            #expect(try await shop.storefront.product(mug.id, representedAs: { $0 }).stock == 5)
            await #expect(throws: OrderError.self) {
                _ = try await shop.feature(OrdersContext.self, of: alice).cancelOrder(order.id)
            }
            #expect(try await shop.storefront.product(mug.id, representedAs: { $0 }).stock == 5)
            #expect(try await shop.feature(OrdersContext.self, of: alice).orders(limit: 10, cursor: nil)
                .items.map(\.order.id) == [order.id])
        }
    }

    @Test("admin work needs an admin: a customer's session makes no admin context, and nothing is made", arguments: StorageBackend.all)
    func adminOnly(backend: StorageBackend) async throws {
        try await ShopRun.with(backend) { shop in
            let alice = try await shop.customer("Alice")
            let before = shop.orchestrator.contextRegistry.count
            await #expect(throws: AccessDenied.adminOnly) { _ = try await shop.feature(AdminContext.self, of: alice) }
            // The root was made for the request; no admin context below it.
            #expect(shop.orchestrator.contextRegistry.count == before + 1)
            // The role is checked as each request enters: promoted, Alice's
            // same session reaches the admin feature; demoted, it no longer does.
            let admin = try await shop.admin()
            let users = try await shop.feature(AdminContext.self, of: admin)
            _ = try await users.updateUser(alice.user.id, UserAdminPatch(role: .admin))
            let promoted = try await shop.authenticate(try #require(shop.tokens.token(of: alice.sessionID)))
            _ = try await shop.feature(AdminContext.self, of: promoted)
            _ = try await users.updateUser(alice.user.id, UserAdminPatch(role: .customer))
            let demoted = try await shop.authenticate(try #require(shop.tokens.token(of: alice.sessionID)))
            await #expect(throws: AccessDenied.adminOnly) { _ = try await shop.feature(AdminContext.self, of: demoted) }
            #expect(try await shop.storefront.products(ProductQuery(text: nil, limit: 10, cursor: nil)).items.isEmpty)
        }
    }
}

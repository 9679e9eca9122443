import Axiom
import AxiomTestSupport
import Capabilities
import CatalogClient
import Contexts
import Domain
import Foundation
import OrderClient
import Testing

/// Recovery beside other replicas (several processes on one database): a
/// replica's start-up and its sweep touch only what their own previous life
/// held or what has its lease run out, never a checkout another replica is
/// running; and what a stalled or dead replica left is finished by the
/// sweep once its lease ran out, not at the next restart.
@Suite(.serialized) struct CheckoutRecoveryScopeTests {
    /// As stored: each process's working set follows the others only
    /// through the change feed, which this test does not run.
    func stock(_ access: StorageAccess, _ product: Product) async throws -> Int? {
        try await access.storedRead { try $0.queryOne("SELECT stock FROM products WHERE id = ?", product.id.description)?.get(0) }
    }

    /// Another replica's catalogue and orders clients on the shop's
    /// database, under its own one-second lease.
    func replicaTwo(_ shop: ShopRun, _ backend: StorageBackend) throws -> (StorageAccess, CatalogClient, OrderClient) {
        let registry = shop.orchestrator.capabilityRegistry
        let access = backend == .sqlite ? StorageAccess(try registry.handle(SQLiteStorage.self))
                                        : StorageAccess(try registry.handle(PostgresStorage.self))
        return (access, CatalogClient(storage: access, lease: CheckoutLease(owner: "replica-2", seconds: 1)),
                OrderClient(storage: access, clock: shop.clock, owner: "replica-2"))
    }

    /// Alice puts two mugs in her cart and replica 2 takes her checkout
    /// with key k1: reserved, placed, then died before its cart clear (and
    /// its answer).
    func twoMugsPlacedOnReplicaTwo(_ shop: ShopRun, _ backend: StorageBackend, _ mug: Product) async throws
        -> (Authentication, CartContext, StorageAccess, CatalogClient, Order) {
        let alice = try await shop.customer("Alice")
        let carts = try await shop.feature(CartContext.self, of: alice)
        _ = try await carts.setQuantity(2, of: mug.id)
        let (access, catalog, orders) = try replicaTwo(shop, backend)
        let checkoutID = CheckoutID(UUID())
        _ = try await catalog.reserve(checkoutID, [StockLine(productID: mug.id, quantity: 2)])
        let cart = try PricedCart(lines: [PricedLine(productID: mug.id, name: mug.name, quantity: 2,
                                                     unitPrice: mug.price)], currency: .usd)
        let placed = try await orders.place(checkoutID: checkoutID, userID: alice.user.id, cart: cart,
                                                  idempotencyKey: "k1",
                                                  fingerprint: CheckoutFingerprint(lines: [CartLine(productID: mug.id, quantity: 2)]))
        return (alice, carts, access, catalog, placed)
    }

    @Test("start-up leaves another replica's running checkouts alone; the sweep finishes them once their lease ran out",
          arguments: StorageBackend.all)
    func scopedByLease(backend: StorageBackend) async throws {
        try await ShopRun.with(backend, lease: CheckoutLease(owner: "replica-1", seconds: 1)) { shop in
            let mug = try await shop.product("MUG", cents: 500, stock: 10)
            // Replica 2, on the same database, in the middle of two checkouts:
            // one has reserved its stock only, the other has placed its
            // order too, but its payment is not opened yet.
            let (access, catalog, orders) = try replicaTwo(shop, backend)
            let reserving = CheckoutID(UUID())
            _ = try await catalog.reserve(reserving, [StockLine(productID: mug.id, quantity: 3)])
            let placing = CheckoutID(UUID())
            _ = try await catalog.reserve(placing, [StockLine(productID: mug.id, quantity: 2)])
            let cart = try PricedCart(lines: [PricedLine(productID: mug.id, name: mug.name, quantity: 2,
                                                         unitPrice: mug.price)], currency: .usd)
            let order = try await orders.place(checkoutID: placing, userID: UserID(UUID()), cart: cart,
                                                     idempotencyKey: nil)

            let recovery = try await shop.orchestrator.createContext(CheckoutRecoveryContext.self, parent: nil)
            let atStart = try await recovery.recover(.ownOrExpired)
            #expect(atStart.isEmpty, "replica 1's restart touched replica 2's live checkouts: \(atStart)")
            #expect(try await recovery.recover(.expired).isEmpty)
            #expect(try await stock(access, mug) == 5)

            // Replica 2 stalls (or dies) past its lease: the database's clock
            // for the reservations, the orders' clock for the order.
            for _ in 0..<50 where try await catalog.expiredReservations(includingOwn: false, limit: 10).count < 2 {
                try await Task.sleep(for: .milliseconds(100))
            }
            shop.clock.advance(by: .seconds(2))
            let swept = try await recovery.recover(.expired)
            #expect(swept.released == 1 && swept.committed == 1 && swept.paymentsOpened == 1 && swept.failed == 0,
                    "\(swept)")
            #expect(try await stock(access, mug) == 8, "the reservation without an order came back")
            let payment: String? = try await access.storedRead {
                try $0.queryOne("SELECT status FROM payments WHERE order_id = ?", order.id.description)?.get(0)
            }
            #expect(payment == "requires_payment", "the order's payment is opened by the sweep")
            #expect(try await recovery.recover(.expired).isEmpty, "finished once")
        }
    }

    @Test("a key retried on this replica after another placed its order and died before clearing the cart clears it before answering; the sweep later leaves the refilled cart alone",
          arguments: StorageBackend.all)
    func retriedKeyClearsTheCart(backend: StorageBackend) async throws {
        try await ShopRun.with(backend, lease: CheckoutLease(owner: "replica-1", seconds: 1)) { shop in
            let mug = try await shop.product("MUG", cents: 500, stock: 10)
            let (alice, carts, access, catalog, placed) = try await twoMugsPlacedOnReplicaTwo(shop, backend, mug)

            // Its client retries the key here: the same order, and the cart it was placed from is empty.
            let checkout = try await shop.feature(CheckoutContext.self, of: alice)
            let (replayed, created) = try await checkout.checkout(idempotencyKey: "k1")
            #expect(replayed.order.id == placed.id && !created)
            #expect(try await carts.cart().lines.isEmpty, "the retried key's answer leaves the ordered lines in the cart")

            // Alice fills the same line again; replica 2's lease runs out and the sweep finishes its order.
            _ = try await carts.setQuantity(2, of: mug.id)
            let recovery = try await shop.orchestrator.createContext(CheckoutRecoveryContext.self, parent: nil)
            for _ in 0..<50 where try await catalog.expiredReservations(includingOwn: false, limit: 10).isEmpty {
                try await Task.sleep(for: .milliseconds(100))
            }
            shop.clock.advance(by: .seconds(2))
            let swept = try await recovery.recover(.expired)
            #expect(swept.committed == 1 && swept.cartsCleared == 0 && swept.settled == 1 && swept.failed == 0, "\(swept)")
            #expect(try await carts.cart().lines.map(\.quantity) == [2], "the sweep took the refilled line")
            let (next, createdNext) = try await checkout.checkout(idempotencyKey: "k2")
            #expect(createdNext && next.order.id != placed.id)
            #expect(try await stock(access, mug) == 6)
        }
    }

    @Test("a key retried after another replica placed its order with the last stock and died before clearing the cart gets that order, not insufficient_stock",
          arguments: StorageBackend.all)
    func retriedKeyWhoseOrderHoldsTheLastStock(backend: StorageBackend) async throws {
        try await ShopRun.with(backend, lease: CheckoutLease(owner: "replica-1", seconds: 60)) { shop in
            let mug = try await shop.product("MUG", cents: 500, stock: 2)
            let (alice, carts, access, _, placed) = try await twoMugsPlacedOnReplicaTwo(shop, backend, mug)

            let checkout = try await shop.feature(CheckoutContext.self, of: alice)
            let (replayed, created) = try await checkout.checkout(idempotencyKey: "k1")
            #expect(replayed.order.id == placed.id && !created)
            #expect(try await carts.cart().lines.isEmpty)
            #expect(try await stock(access, mug) == 0, "the first order holds the stock, once")
            let reservations: Int? = try await access.storedRead {
                try $0.queryOne("SELECT count(*) FROM stock_checkouts WHERE status = 'reserved'")?.get(0)
            }
            #expect(reservations == 1, "only the first checkout's reservation stands")
            await #expect(throws: OrderError.idempotencyKeyReused) {
                _ = try await carts.setQuantity(1, of: mug.id)
                _ = try await checkout.checkout(idempotencyKey: "k1")
            }
        }
    }
}

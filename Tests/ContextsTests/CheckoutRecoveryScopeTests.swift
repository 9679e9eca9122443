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

    @Test("start-up leaves another replica's running checkouts alone; the sweep finishes them once their lease ran out",
          arguments: StorageBackend.all)
    func scopedByLease(backend: StorageBackend) async throws {
        try await ShopRun.with(backend, lease: CheckoutLease(owner: "replica-1", seconds: 1)) { shop in
            let mug = try await shop.product("MUG", cents: 500, stock: 10)
            // Replica 2, on the same database, in the middle of two checkouts:
            // one has reserved its stock only, the other has placed its
            // order too, but its payment is not opened yet.
            let registry = shop.orchestrator.capabilityRegistry
            let access = backend == .sqlite ? StorageAccess(try registry.handle(SQLiteStorage.self))
                                            : StorageAccess(try registry.handle(PostgresStorage.self))
            let catalog = CatalogClient(storage: access, lease: CheckoutLease(owner: "replica-2", seconds: 1))
            let orders = OrderClient(storage: access, clock: shop.clock, owner: "replica-2")
            let reserving = CheckoutID(UUID())
            _ = try await catalog.send(.reserve(reserving, [StockLine(productID: mug.id, quantity: 3)]))
            let placing = CheckoutID(UUID())
            _ = try await catalog.send(.reserve(placing, [StockLine(productID: mug.id, quantity: 2)]))
            let cart = try PricedCart(lines: [PricedLine(productID: mug.id, name: mug.name, quantity: 2,
                                                         unitPrice: mug.price)], currency: .usd)
            let order = try await orders.send(.place(checkoutID: placing, userID: UserID(UUID()), cart: cart,
                                                     idempotencyKey: nil))

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
}

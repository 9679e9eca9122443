import Axiom
import AxiomTestSupport
import Capabilities
@testable import CatalogClient
import Domain
import Foundation
import Testing

/// Reservations under a lease, with several processes on one database: what
/// recovery may touch, a checkout that outlived its lease, and stock that
/// comes back (never twice, never clipped).
@Suite("CatalogClient stock: leases, retaken reservations, returns", .serialized)
struct CatalogLeaseTests {
    @Test("recovery lists only reservations whose lease ran out, and with includingOwn the owner's own", arguments: StorageBackend.all)
    func expiredLeases(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend, lease: CheckoutLease(owner: "replica-1", seconds: 1)) { first in
            // Another process's catalogue on the same database.
            let registry = first.orchestrator.capabilityRegistry
            let access = backend == .sqlite ? StorageAccess(try registry.handle(SQLiteStorage.self))
                                            : StorageAccess(try registry.handle(PostgresStorage.self))
            let second = CatalogClient(storage: access, lease: CheckoutLease(owner: "replica-2", seconds: 600))
            let mug = try await first.client.create(draft("MUG", stock: 5))
            let short = CheckoutID(UUID())
            _ = try await first.client.reserve(short, [StockLine(productID: mug.id, quantity: 1)])
            let long = CheckoutID(UUID())
            _ = try await second.reserve(long, [StockLine(productID: mug.id, quantity: 1)])
            #expect(try await second.expiredReservations(includingOwn: false, limit: 10).isEmpty,
                    "a running checkout of another process is not recovery's")
            #expect(try await second.expiredReservations(includingOwn: true, limit: 10) == [long])
            #expect(try await first.client.expiredReservations(includingOwn: true, limit: 10) == [short])
            // The first lease (1 s, on the database's clock) runs out.
            var expired: [CheckoutID] = []
            for _ in 0..<50 where expired.isEmpty {
                try await Task.sleep(for: .milliseconds(100))
                expired = try await second.expiredReservations(includingOwn: false, limit: 10)
            }
            #expect(expired == [short])
            #expect(try await second.product(mug.id).stock == 3)
        }
    }

    @Test("a reservation released under a running checkout is taken again when its order commits, or refused; never an order without stock", arguments: StorageBackend.all)
    func releasedThenCommitted(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let mug = try await client.create(draft("MUG", stock: 5))
            let paused = CheckoutID(UUID())
            let ordered = [StockLine(productID: mug.id, quantity: 3)]
            _ = try await client.reserve(paused, ordered)
            // Recovery released it (its lease ran out) before the order was placed.
            #expect(try await client.releaseReservation(paused).map(\.stock) == [5])
            // Another buyer takes four meanwhile: the paused checkout's three are gone.
            let other = CheckoutID(UUID())
            _ = try await client.reserve(other, [StockLine(productID: mug.id, quantity: 4)])
            let refused = await domainError {
                _ = try await client.commitReservation(paused, ordered: ordered, unlessReturned: "cancel-paused")
            }
            #expect(refused?.code == "insufficient_stock")
            #expect(try await client.lookup(mug.id)?.stock == 1, "a refused commit takes nothing")
            // With the stock there again, the commit takes it, once.
            _ = try await client.releaseReservation(other)
            #expect(try await client.commitReservation(paused, ordered: ordered, unlessReturned: "cancel-paused") == 1)
            #expect(try await client.lookup(mug.id)?.stock == 2)
            #expect(try await client.commitReservation(paused, ordered: ordered, unlessReturned: "cancel-paused") == 0)
            #expect(try await client.lookup(mug.id)?.stock == 2)
            // Its order cancelled now: the stock it took again comes back, once.
            #expect(try await client.returnStock(key: "cancel-paused", lines: ordered, checkout: paused).map(\.stock) == [5])
            #expect(try await client.returnStock(key: "cancel-paused", lines: ordered, checkout: paused).isEmpty)
            #expect(try await client.lookup(mug.id)?.stock == 5)
        }
    }

    @Test("a cancelled order gets back only what its checkout holds: nothing after a release, the reservation while reserved", arguments: StorageBackend.all)
    func returnsFollowTheCheckout(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let mug = try await client.create(draft("MUG", stock: 10))
            let lines = [StockLine(productID: mug.id, quantity: 6)]
            // Released by recovery, then its order expired: the six came back once, at the release.
            let released = CheckoutID(UUID())
            _ = try await client.reserve(released, lines)
            _ = try await client.releaseReservation(released)
            #expect(try await client.returnStock(key: "cancel-1", lines: lines, checkout: released).isEmpty)
            #expect(try await client.lookup(mug.id)?.stock == 10, "no phantom stock")
            // ... and the checkout, resuming, does not take it again for the cancelled order.
            #expect(try await client.commitReservation(released, ordered: lines, unlessReturned: "cancel-1") == 0)
            #expect(try await client.lookup(mug.id)?.stock == 10)
            // Cancelled before its checkout committed: the reservation goes back, and a late commit takes nothing.
            let reserved = CheckoutID(UUID())
            _ = try await client.reserve(reserved, lines)
            #expect(try await client.returnStock(key: "cancel-2", lines: lines, checkout: reserved).map(\.stock) == [10])
            #expect(try await client.commitReservation(reserved, ordered: lines, unlessReturned: "cancel-2") == 0)
            #expect(try await client.lookup(mug.id)?.stock == 10)
            #expect(try await client.pendingReservations().isEmpty)
        }
    }

    @Test("stock coming back beyond the maximum is refused with stock_limit_exceeded; nothing is dropped", arguments: StorageBackend.all)
    func neverClipped(backend: StorageBackend) async throws {
        try await withCatalog(backend: backend) { run in
            let client = run.client
            let maximum = Product.stockRange.upperBound
            let mug = try await client.create(draft("MUG", stock: maximum - 10))
            let checkout = CheckoutID(UUID())
            _ = try await client.reserve(checkout, [StockLine(productID: mug.id, quantity: 10)])
            // An admin sets the stock to the maximum while the ten are held.
            _ = try await client.update(mug.id, ProductPatch(stock: maximum))
            let release = await domainError { _ = try await client.releaseReservation(checkout) }
            #expect(release?.code == "stock_limit_exceeded" && release?.category == .conflict)
            #expect(try await client.lookup(mug.id)?.stock == maximum)
            #expect(try await client.pendingReservations() == [checkout], "still held: released once there is room")
            let returned = await domainError {
                _ = try await client.returnStock(key: "cancel-x", lines: [StockLine(productID: mug.id, quantity: 1)])
            }
            #expect(returned?.code == "stock_limit_exceeded")
            // Room made: both go through, every unit counted.
            _ = try await client.update(mug.id, ProductPatch(stock: maximum - 11))
            #expect(try await client.releaseReservation(checkout).map(\.stock) == [maximum - 1])
            #expect(try await client.returnStock(key: "cancel-x", lines: [StockLine(productID: mug.id, quantity: 1)])
                .map(\.stock) == [maximum])
        }
    }
}

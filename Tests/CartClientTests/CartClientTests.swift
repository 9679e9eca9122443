import Axiom
import AxiomTestSupport
import Capabilities
import CartClient
import Domain
import Foundation
import Synchronization
import Testing

/// One "process run" on a database file: orchestrator, storage, the cart client.
typealias CartRun = ClientRun<CartClient>

extension ClientRun where C == CartClient {
    static func start(_ path: String, backend: StorageBackend = .sqlite,
                      cacheEntries: Int = CartClient.defaultCacheEntries) async throws -> CartRun {
        try await start(path: path, backend: backend, migrations: CartClient.migrations) { resolver in
            CartClient(storage: try backend.access(resolver), cacheEntries: cacheEntries)
        }
    }
}

@Suite(.serialized) struct CartClientTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cart-client-\(UUID().uuidString)")
    var path: String { directory.appendingPathComponent("cart.db").path }
    let user = UserID(UUID())
    let mug = ProductID(UUID())
    let pen = ProductID(UUID())

    @Test(arguments: StorageBackend.all) func linesKeepTheirOrderAndSurviveARestart(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        var run = try await CartRun.start(database, backend: backend)
        _ = try await run.client.setQuantity(user, mug, 2)
        _ = try await run.client.setQuantity(user, pen, 1)
        let updated = try await run.client.setQuantity(user, mug, 5)
        #expect(updated.lines.map(\.productID) == [mug, pen])
        #expect(updated.quantity(of: mug) == 5)
        await run.stop()

        run = try await CartRun.start(database, backend: backend)
        let reloaded = try await run.client.cart(for: user)
        #expect(reloaded == updated)
        let removed = try await run.client.remove(user, mug)
        #expect(removed.lines.map(\.productID) == [pen])
        #expect(try await run.client.clear(user).isEmpty)
        await run.stop()

        run = try await CartRun.start(database, backend: backend)
        #expect(try await run.client.cart(for: user).isEmpty)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func concurrentChangesOfOneUserAreAllKept(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        var run = try await CartRun.start(database, backend: backend)
        let products = (0..<40).map { _ in ProductID(UUID()) }
        let client = run.client
        let user = self.user
        // All at once: each change must start from the cart the previous one
        // left, or a later write stores a cart without an earlier line.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, product) in products.enumerated() {
                group.addTask { _ = try await client.setQuantity(user, product, index % 99 + 1) }
            }
            try await group.waitForAll()
        }
        let cart = try await run.client.cart(for: user)
        #expect(Set(cart.lines.map(\.productID)) == Set(products))
        await run.stop()

        run = try await CartRun.start(database, backend: backend)
        #expect(try await run.client.cart(for: user) == cart)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func orderIsKeptAcrossRemovalsAndRestarts(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let cup = ProductID(UUID())
        var run = try await CartRun.start(database, backend: backend)
        _ = try await run.client.setQuantity(user, mug, 1)
        _ = try await run.client.setQuantity(user, pen, 2)
        _ = try await run.client.remove(user, mug)
        _ = try await run.client.setQuantity(user, cup, 3)
        let cart = try await run.client.setQuantity(user, mug, 4)
        #expect(cart.lines.map(\.productID) == [pen, cup, mug])
        await run.stop()

        run = try await CartRun.start(database, backend: backend)
        #expect(try await run.client.cart(for: user) == cart)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func clearingAfterACheckoutHappensOnceEvenAcrossARestart(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        var run = try await CartRun.start(database, backend: backend)
        let checkout = CheckoutID(UUID()), unfinished = CheckoutID(UUID())
        let ordered = [CartLine(productID: mug, quantity: 2)]
        _ = try await run.client.setQuantity(user, mug, 2)
        #expect(try await run.client.unclearedCheckouts(among: [checkout, unfinished]) == [checkout, unfinished])
        #expect(try await run.client.clearAfterCheckout(user, checkout, ordered: ordered).isEmpty)
        #expect(try await run.client.unclearedCheckouts(among: [checkout, unfinished]) == [unfinished])
        _ = try await run.client.setQuantity(user, pen, 1)
        let again = try await run.client.clearAfterCheckout(user, checkout, ordered: ordered)
        #expect(again.lines.map(\.productID) == [pen])
        await run.stop()

        run = try await CartRun.start(database, backend: backend)
        #expect(try await run.client.unclearedCheckouts(among: [checkout, unfinished]) == [unfinished])
        let afterRestart = try await run.client.clearAfterCheckout(user, checkout, ordered: ordered)
        #expect(afterRestart.lines.map(\.productID) == [pen])
        #expect(try await run.client.clearAfterCheckout(user, CheckoutID(UUID()), ordered: [CartLine(productID: pen, quantity: 1)]).isEmpty)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func clearingAfterACheckoutKeepsWhatTheOrderDoesNotHold(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await CartRun.start(database, backend: backend)
        let cup = ProductID(UUID())
        _ = try await run.client.setQuantity(user, mug, 2)
        _ = try await run.client.setQuantity(user, pen, 1)
        _ = try await run.client.setQuantity(user, cup, 4)
        // The order holds the mugs and one cup; the pen and the cup's new
        // quantity came after the checkout read the cart.
        let ordered = [CartLine(productID: mug, quantity: 2), CartLine(productID: cup, quantity: 1)]
        let after = try await run.client.clearAfterCheckout(user, CheckoutID(UUID()), ordered: ordered)
        #expect(after.lines == [CartLine(productID: pen, quantity: 1), CartLine(productID: cup, quantity: 4)])
        await run.stop()
        let again = try await CartRun.start(database, backend: backend)
        #expect(try await again.client.cart(for: user) == after)
        await again.stop()
    }

    @Test(arguments: StorageBackend.all) func quantityOutsideOneToNinetyNineIsRefusedAndNothingIsStored(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await CartRun.start(database, backend: backend)
        for quantity in [0, -1, 100] {
            await #expect(throws: ValidationError.self) { _ = try await run.client.setQuantity(user, mug, quantity) }
        }
        #expect(try await run.client.cart(for: user).isEmpty)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func everyObserverSeesTheChange(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        let run = try await CartRun.start(database, backend: backend)
        let first = run.client.stateUpdates
        let second = run.client.stateUpdates
        let cart = try await run.client.setQuantity(user, mug, 3)
        var firstIterator = first.makeAsyncIterator()
        var secondIterator = second.makeAsyncIterator()
        let heard = await firstIterator.next()
        guard case .changed(let seen, let sequence) = heard else {
            Issue.record("expected a change, got \(String(describing: heard))")
            return
        }
        #expect(seen == cart && sequence > 0)
        #expect(await secondIterator.next() == .changed(cart, sequence: sequence))
        await run.stop()
    }
}

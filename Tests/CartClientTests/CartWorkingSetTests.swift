import Axiom
import AxiomTestSupport
import Capabilities
import CartClient
import Domain
import Foundation
import Testing

/// The carts working set (issue 12): bounded, filled on demand, never older
/// than what was committed.
extension CartClientTests {
    /// With room for one cart, every change of one user's cart (two
    /// "sessions" at once) races changes of another user's, which evict it:
    /// each change must still start from the cart the previous one left.
    @Test(arguments: StorageBackend.all) func aCartEditedFromTwoSessionsWhileItIsEvictedKeepsEveryChange(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        var run = try await CartRun.start(database, backend: backend, cacheEntries: 1)
        let client = run.client
        let (user, other) = (self.user, UserID(UUID()))
        let products = (0..<30).map { _ in ProductID(UUID()) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for session in 0..<2 {
                group.addTask {
                    for (index, product) in products.enumerated() where index % 2 == session {
                        _ = try await client.setQuantity(user, product, index + 1)
                    }
                }
            }
            group.addTask {
                for product in products { _ = try await client.setQuantity(other, product, 1) }
            }
            group.addTask {
                for _ in products { _ = try await client.cart(for: other) }
            }
            try await group.waitForAll()
        }
        #expect(await run.client.cachedCount == 1)
        let cart = try await run.client.cart(for: user)
        #expect(Set(cart.lines.map(\.productID)) == Set(products))
        #expect(products.enumerated().allSatisfy { cart.quantity(of: $1) == $0 + 1 })
        #expect(try await run.client.cart(for: other).lines.map(\.productID) == products)
        await run.stop()

        run = try await CartRun.start(database, backend: backend)
        #expect(try await run.client.cart(for: user) == cart)
        await run.stop()
    }

    @Test(arguments: StorageBackend.all) func startUpReadsNoCartAndAMissReadsOnlyItsUsers(backend: StorageBackend) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try await backend.database(at: path)
        var run = try await CartRun.start(database, backend: backend)
        let users = (0..<200).map { _ in UserID(UUID()) }
        for user in users { _ = try await run.client.setQuantity(user, mug, 3) }
        #expect(await run.client.cachedCount == 200)
        await run.stop()

        run = try await CartRun.start(database, backend: backend, cacheEntries: 50)
        #expect(await run.client.cachedCount == 0)
        #expect(await run.client.state.count == 0)
        #expect(try await run.client.cart(for: users[7]).quantity(of: mug) == 3)
        #expect(await run.client.cachedCount == 1)
        for user in users { #expect(try await run.client.cart(for: user).quantity(of: mug) == 3) }
        #expect(await run.client.cachedCount == 50)
        await run.stop()
    }
}

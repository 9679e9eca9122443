import AxiomTestSupport
import CartClient
import Domain
import Foundation
import Testing

/// One user's cart written from two replicas at once (issue 13): two
/// `CartClient`s, each over its own storage instance on one database, each
/// with its own working set, as two server processes would have them.
@Suite struct CartReplicaTests {
    let user = UserID(UUID())

    /// Before: each replica computed the change from its own working set,
    /// so it acknowledged carts missing the other replica's lines (and kept
    /// them), although every line was in the database.
    @Test(arguments: StorageBackend.all)
    func twoReplicasAddingToOneCartAtOnceLoseNoLine(backend: StorageBackend) async throws {
        let replicas = try await Replicas.open(2, backend: backend, migrations: CartClient.migrations)
        let clients = replicas.accesses.map { CartClient(storage: $0) }
        var added: [ProductID] = []
        for _ in 0..<20 {
            let pair = [ProductID(UUID()), ProductID(UUID())]
            let carts = try await withThrowingTaskGroup(of: Cart.self) { group in
                for (client, product) in zip(clients, pair) {
                    group.addTask { [user] in try await client.setQuantity(user, product, 1) }
                }
                return try await group.reduce(into: [Cart]()) { $0.append($1) }
            }
            // Each acknowledged cart holds every line committed before it,
            // the other replica's earlier rounds included.
            for cart in carts {
                #expect(Set(added).isSubset(of: Set(cart.lines.map(\.productID))))
            }
            // Of the two at once, the later commit's cart holds both.
            #expect(carts.map(\.lines.count).max() == added.count + 2)
            added += pair
        }
        let fresh = CartClient(storage: replicas.accesses[0])
        #expect(Set(try await fresh.cart(for: user).lines.map(\.productID)) == Set(added))
        for client in clients + [fresh] { await client.deactivate() }
        await replicas.close()
    }

    /// Before: `If-Match` was compared with each replica's own working set,
    /// so two replicas holding the same cart both accepted a change made
    /// from it, and the second overwrote the first.
    @Test(arguments: StorageBackend.all)
    func quantityChangesFromOneCartOnThreeReplicasSerialize(backend: StorageBackend) async throws {
        let replicas = try await Replicas.open(3, backend: backend, migrations: CartClient.migrations)
        let clients = replicas.accesses.map { CartClient(storage: $0) }
        let mug = ProductID(UUID())
        _ = try await clients[0].setQuantity(user, mug, 1)
        for round in 0..<10 {
            // Every replica holds the same cart, then all change it at once.
            var seen: [Cart] = []
            for client in clients { seen.append(try await client.cart(for: user)) }
            #expect(Set(seen).count == 1)
            let outcomes = await withTaskGroup(of: Result<Cart, any Error>.self) { group in
                for (index, client) in clients.enumerated() {
                    group.addTask { [user, seen] in
                        do {
                            let quantity = 2 + (round * 3 + index) % 90
                            return .success(try await client.setQuantity(user, mug, quantity, unchangedFrom: seen[index]))
                        } catch { return .failure(error) }
                    }
                }
                return await group.reduce(into: [Result<Cart, any Error>]()) { $0.append($1) }
            }
            let winners = outcomes.compactMap { try? $0.get() }
            #expect(winners.count == 1)
            for case .failure(let error) in outcomes {
                #expect(error as? EntityError == EntityError.preconditionFailed(entity: "cart"))
            }
            // The losers' replicas still hold the old cart until the change
            // feed refreshes them; a write on any replica starts from the
            // database, so the next round begins from the winner's cart:
            // a no-op write on each replica brings its working set up to date.
            for client in clients {
                _ = try await client.remove(user, ProductID(UUID()))
            }
            #expect(try await clients[round % 3].cart(for: user) == winners.first)
        }
        for client in clients { await client.deactivate() }
        await replicas.close()
    }
}

import AxiomTestSupport
import Domain
import Foundation
import OrderClient
import Testing

/// Idempotency keys and order transitions across replicas (issue 13):
/// three `OrderClient`s, each over its own storage instance on one
/// database, so the in-process join of a placement in flight (`placing`)
/// cannot help and the database must decide.
@Suite struct OrderReplicaTests {
    let user = UserID(UUID())

    func cart() throws -> PricedCart {
        try PricedCart(lines: [PricedLine(productID: ProductID(UUID()), name: "Lamp", quantity: 2,
                                          unitPrice: Money(amount: 1500, currency: .usd))], currency: .usd)
    }

    /// Before, on PostgreSQL: the replicas that lost the race into the
    /// unique `(user_id, idempotency_key)` index answered
    /// `duplicate_idempotency_key`, where one process joins the first
    /// placement and returns its order.
    @Test(arguments: StorageBackend.all)
    func oneKeySentToThreeReplicasAtOnceMakesOneOrder(backend: StorageBackend) async throws {
        let replicas = try await Replicas.open(3, backend: backend, migrations: OrderClient.migrations)
        let clients = replicas.accesses.map { OrderClient(storage: $0, clock: ManualClock()) }
        let priced = try cart()
        for round in 0..<10 {
            let key = "key-\(round)"
            let ids = try await withThrowingTaskGroup(of: OrderID.self) { [user] group in
                for client in clients {
                    group.addTask {
                        try await client.place(checkoutID: CheckoutID(UUID()), userID: user, cart: priced,
                                                     idempotencyKey: key).id
                    }
                }
                return try await group.reduce(into: Set<OrderID>()) { $0.insert($1) }
            }
            #expect(ids.count == 1)
            #expect(try await clients[round % 3].order(userID: user, idempotencyKey: key, matching: nil)?.id == ids.first)
        }
        #expect(try await clients[0].orders(for: user, limit: 100, after: nil).items.count == 10)
        for client in clients { await client.deactivate() }
        await replicas.close()
    }

    /// Two replicas moving one pending order at once (the checkout
    /// confirming it, the expiry cancelling it: after either, the other is
    /// illegal) take turns on its row: one move wins and the other is
    /// checked against it. Before, on PostgreSQL both read `pending` and
    /// both committed, the second over the first.
    @Test(arguments: StorageBackend.all)
    func twoTransitionsOfOneOrderOnTwoReplicasDoNotOverwriteEachOther(backend: StorageBackend) async throws {
        let replicas = try await Replicas.open(2, backend: backend, migrations: OrderClient.migrations)
        let clients = replicas.accesses.map { OrderClient(storage: $0, clock: ManualClock()) }
        for _ in 0..<10 {
            let order = try await clients[0].place(checkoutID: CheckoutID(UUID()), userID: user, cart: try cart(),
                                                          idempotencyKey: nil)
            let outcomes = await withTaskGroup(of: Result<Order, any Error>.self) { group in
                for (client, status) in zip(clients, [OrderStatus.confirmed, .cancelled]) {
                    group.addTask {
                        do { return .success(try await client.transition(order.id, to: status, by: .system, cause: testCause)) }
                        catch { return .failure(error) }
                    }
                }
                return await group.reduce(into: [Result<Order, any Error>]()) { $0.append($1) }
            }
            let winners = outcomes.compactMap { try? $0.get() }
            #expect(winners.count == 1)
            for case .failure(let error) in outcomes { #expect((error as? any Refusal)?.code == "illegal_transition") }
            #expect(try await clients[1].order(order.id).status == winners.first?.status)
        }
        for client in clients { await client.deactivate() }
        await replicas.close()
    }
}

import AxiomTestSupport
import Capabilities
import CartClient
import Domain
import Foundation
import Testing

/// Two cart clients over one database, as two replicas are: a change on A
/// is what B reads after its read barrier, every round, though B holds the
/// cart in its working set; and B's observers of that user hear it.
@Suite(.serialized) struct CartChangeFeedTests {
    @Test(arguments: StorageBackend.all)
    func aWriteOnOneReplicaIsReadOnTheOtherAfterTheBarrier(backend: StorageBackend) async throws {
        // Polling slowly: only the barrier makes B current within a round.
        let (a, b) = try await Replica.pair(backend, migrations: CartClient.migrations,
                                            a: .poll(every: .seconds(3600)), b: .poll(every: .seconds(3600)))
        let cartsA = CartClient(storage: a.storage)
        let cartsB = CartClient(storage: b.storage)
        a.feed.subscribe(cartsA)
        b.feed.subscribe(cartsB)
        try await a.feed.start()
        try await b.feed.start()
        let user = UserID(UUID())
        let mug = ProductID(UUID())
        for round in 1...40 {
            _ = try await cartsB.cart(for: user) // B holds the cart it read
            let written = try await cartsA.setQuantity(user, mug, round % 99 + 1)
            try await b.feed.barrier()
            #expect(try await cartsB.cart(for: user) == written, "round \(round)")
        }
        #expect(b.feed.metrics.appliedChanges == 40)
        await a.stop()
        await b.stop()
    }

    @Test(arguments: StorageBackend.all)
    func anObserverOnTheOtherReplicaHearsTheChange(backend: StorageBackend) async throws {
        let (a, b) = try await Replica.pair(backend, migrations: CartClient.migrations,
                                            b: .poll(every: .milliseconds(10)))
        let cartsA = CartClient(storage: a.storage)
        let cartsB = CartClient(storage: b.storage)
        b.feed.subscribe(cartsB)
        try await b.feed.start()
        let user = UserID(UUID())
        let updates = cartsB.stateBroadcaster.subscribe(key: user)
        let local = cartsA.stateBroadcaster.subscribe(key: user)
        let written = try await cartsA.setQuantity(user, ProductID(UUID()), 3)
        // The same outbox sequence on both replicas: an /events id that
        // means the same change wherever the stream is.
        guard case .changed(_, let sequence) = try #require(await firstElement(of: local)) else { return }
        #expect(sequence > 0)
        let heard = await firstElement(of: updates, within: .seconds(10))
        #expect(heard == .changed(written, sequence: sequence))
        await a.stop()
        await b.stop()
    }
}

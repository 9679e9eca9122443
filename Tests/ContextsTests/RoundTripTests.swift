import Axiom
import AxiomTestSupport
import Capabilities
import Contexts
import Domain
import Testing

/// What a cart write and a checkout cost the writer in round trips to
/// PostgreSQL (`StorageMetrics.writerRoundTrips`, the
/// `axiom_storage_round_trips_total` metric): statements whose result is
/// not read wait and travel in one pipeline with the next one that is, or
/// with the batch's outbox rows (docs/postgres.md, "Pipelining").
@Suite(.enabled(if: StorageBackend.databaseURL != nil, "round trips are PostgreSQL's (AXIOM_TEST_DATABASE_URL)"))
struct RoundTripTests {
    /// The writer's counters once they stopped moving: a checkout's settle
    /// is written after its answer.
    private func quiet(_ storage: PostgresStorage) async throws -> StorageMetrics {
        var last = storage.metrics
        var unchanged = 0
        while unchanged < 3 {
            try await Task.sleep(for: .milliseconds(50))
            let now = storage.metrics
            unchanged = now.writesAcknowledged == last.writesAcknowledged
                && now.writerRoundTrips == last.writerRoundTrips ? unchanged + 1 : 0
            last = now
        }
        return last
    }

    /// The writer's round trips and writes spent by `action` and what it set off.
    private func cost(_ storage: PostgresStorage, _ action: () async throws -> Void) async throws -> (roundTrips: Int, writes: Int) {
        let before = try await quiet(storage)
        try await action()
        let after = try await quiet(storage)
        return (after.writerRoundTrips - before.writerRoundTrips, after.writesAcknowledged - before.writesAcknowledged)
    }

    @Test func aCartWriteAndACheckoutCostARoundTripPerDependentStep() async throws {
        try await ShopRun.with(.postgres) { shop in
            let storage = try shop.orchestrator.capabilityRegistry.resolve(PostgresStorage.self)
            let mug = try await shop.product("MUG", cents: 1_250, stock: 100)
            let alice = try await shop.customer("Alice")
            let cart = try await shop.feature(CartContext.self, of: alice)
            let checkout = try await shop.feature(CheckoutContext.self, of: alice)
            // Once first, so every statement is prepared on the writer's connection.
            _ = try await cart.setQuantity(1, of: mug.id)
            _ = try await checkout.checkout(idempotencyKey: nil)

            let cartWrite = try await cost(storage) { _ = try await cart.setQuantity(2, of: mug.id) }
            let cartChange = try await cost(storage) { _ = try await cart.setQuantity(3, of: mug.id) }
            let placed = try await cost(storage) { _ = try await checkout.checkout(idempotencyKey: nil) }
            print("round trips: cart write \(cartWrite), \(cartChange); checkout \(placed)")
            #expect(cartWrite.writes == 1 && cartChange.writes == 1)
            // The version bump (with BEGIN); the line with the outbox row; NOTIFY and COMMIT.
            #expect(cartWrite.roundTrips <= 3 && cartChange.roundTrips <= 3, "a cart write took \(cartWrite.roundTrips) round trips")
            #expect(placed.writes == 6)
            #expect(placed.roundTrips <= 18, "a checkout took \(placed.roundTrips) round trips")
        }
    }
}

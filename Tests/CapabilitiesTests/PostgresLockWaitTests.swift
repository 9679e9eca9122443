import AxiomTestSupport
import Dispatch
import Synchronization
import Testing
import TestSupport
@testable import Capabilities

/// Without a lock that orders every replica's batches, two writers can
/// want the same row at once. A request that waits on a row another
/// writer's batch holds longer than `lockWait` leaves its own batch, which
/// commits without it, and runs first in the next one: its neighbours are
/// not held behind another replica's transaction, and two batches that
/// lock rows in opposite orders part without PostgreSQL's deadlock timeout.
@Suite(.enabled(if: StorageBackend.databaseURL != nil, "AXIOM_TEST_DATABASE_URL is unset: PostgreSQL tests skipped"))
struct PostgresLockWaitTests {
    @Test func aRequestWaitingOnAnotherWritersRowDoesNotHoldItsBatch() async throws {
        let url = try await StorageBackend.freshSchemaURL()
        let migrations = StorageHandleTests.migrations
        let holder = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: migrations)
        let waiter = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: migrations)
        try await holder.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('shared', 0)") }

        // The holder's transaction locks the row and stays open until the gate opens.
        let locked = Atomic(false)
        let gate = DispatchSemaphoreGate()
        let holding = Task {
            try await holder.writeTransaction { handle in
                try handle.execute("UPDATE items SET count = count + 1 WHERE id = 'shared'")
                locked.store(true, ordering: .sequentiallyConsistent)
                gate.wait()
            }
        }
        try await eventually { locked.load(ordering: .sequentiallyConsistent) }

        let runs = Atomic(0)
        let blocked = Task {
            try await waiter.writeTransaction { handle in
                runs.add(1, ordering: .relaxed)
                try handle.execute("UPDATE items SET count = count + 10 WHERE id = 'shared'")
            }
        }
        // Queued behind the blocked request, on the same writer.
        let neighbour = Task {
            try await waiter.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('neighbour', 1)") }
        }
        try await neighbour.value
        let holderStillOpen = try await waiter.readTransaction {
            try $0.queryOne("SELECT count FROM items WHERE id = 'shared'")?.get("count", as: Int64.self)
        }
        #expect(holderStillOpen == 0, "the neighbour committed while the row was still held")

        gate.open()
        try await holding.value
        try await blocked.value
        let shared = try await waiter.readTransaction {
            try $0.queryOne("SELECT count FROM items WHERE id = 'shared'")?.get("count", as: Int64.self)
        }
        #expect(shared == 11)
        #expect(runs.load(ordering: .relaxed) >= 2, "the blocked request ran again in a later batch")
        await holder.close()
        await waiter.close()
    }
}

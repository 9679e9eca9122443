import AxiomTestSupport
import Testing
@testable import Capabilities

/// A read transaction costs one round trip per query: its BEGIN goes with
/// the first query and its COMMIT is not waited for. What that must not
/// cost: a consistent snapshot across the read's queries, the next read
/// on the connection, or a read on a connection the server has closed.
@Suite(.enabled(if: StorageBackend.databaseURL != nil, "AXIOM_TEST_DATABASE_URL is unset: PostgreSQL tests skipped"))
struct PostgresReadTests {
    private static func open() async throws -> PostgresStorage {
        try await open(url: StorageBackend.freshSchemaURL())
    }

    private static func open(url: String) async throws -> PostgresStorage {
        try await PostgresStorage.open(PostgresConfiguration(url: url, readerCount: 1),
                                              migrations: StorageHandleTests.migrations)
    }

    private static func count(_ handle: any StorageHandle) throws -> Int64? {
        try handle.queryOne("SELECT count(*) AS n FROM items")?.get("n", as: Int64.self)
    }

    @Test func aReadOfOneQueryIsOneRoundTripAndTheNextReadFindsTheConnectionReady() async throws {
        let storage = try await Self.open()
        try await storage.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('a', 1)") }
        var rounds: [Int] = []
        for queries in [1, 1, 2, 0, 1] {
            let before = storage.metrics.readerRoundTrips
            let counts = try await storage.readTransaction { handle in
                try (0..<queries).map { _ in try Self.count(handle) }
            }
            #expect(counts == Array(repeating: 1, count: queries))
            rounds.append(storage.metrics.readerRoundTrips - before)
        }
        #expect(rounds == [1, 1, 2, 0, 1], "round trips per read of 1, 1, 2, 0 and 1 queries")
        await storage.close()
    }

    @Test func aReadSeesOneSnapshotAcrossItsQueries() async throws {
        let storage = try await Self.open()
        try await storage.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('a', 1)") }
        let gate = DispatchSemaphoreGate()
        let firstDone = DispatchSemaphoreGate()
        let reading = Task {
            try await storage.readTransaction { handle -> (Int64?, Int64?) in
                let first = try Self.count(handle)
                firstDone.open()
                gate.wait()
                return (first, try Self.count(handle))
            }
        }
        firstDone.wait()
        try await storage.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('b', 1)") }
        gate.open()
        let (first, second) = try await reading.value
        #expect(first == 1 && second == 1, "a write committed mid-read stays outside its snapshot")
        let after = try await storage.readTransaction { try Self.count($0) }
        #expect(after == 2)
        await storage.close()
    }

    @Test func aFailedReadLeavesTheConnectionReady() async throws {
        let storage = try await Self.open()
        await #expect(throws: StorageError.self) {
            try await storage.readTransaction { try $0.query("SELECT * FROM no_such_table", arguments: []) }
        }
        #expect(try await storage.readTransaction { try Self.count($0) } == 0)
        await storage.close()
    }

    @Test func aReadOnAConnectionTheServerClosedRunsOnAFreshOne() async throws {
        let url = try await StorageBackend.freshSchemaURL()
        let proxy = try CommitCuttingProxy(relayingTo: url)
        let storage = try await Self.open(url: proxy.url(url))
        #expect(try await storage.readTransaction { try Self.count($0) } == 0)
        proxy.dropConnections()
        #expect(try await storage.readTransaction { try Self.count($0) } == 0)
        await storage.close()
        proxy.close()
    }
}

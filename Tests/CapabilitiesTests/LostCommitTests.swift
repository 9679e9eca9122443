import AxiomTestSupport
import Synchronization
import Testing
import TestSupport
@testable import Capabilities

/// A connection that breaks after the writer sent COMMIT leaves the batch's
/// fate unknown to it: PostgreSQL may have committed. The writer asks, on a
/// new connection, by the transaction's id: a committed batch is
/// acknowledged, a rolled-back one runs again, and one it cannot ask about
/// fails as `outcomeUnknown`, never as "unavailable, nothing applied".
@Suite(.enabled(if: StorageBackend.databaseURL != nil, "AXIOM_TEST_DATABASE_URL is unset: PostgreSQL tests skipped"))
struct LostCommitTests {
    /// How the write reaches COMMIT: after a read (COMMIT rides its
    /// release), with nothing read (COMMIT goes alone, after the pipeline
    /// that learned the transaction's id), or with a change recorded
    /// (COMMIT goes with the notification).
    enum Shape: CaseIterable { case readThenWrite, writeOnly, recordsChange }

    @Test(arguments: Shape.allCases)
    func aCommitWhoseAnswerIsLostIsAcknowledgedOnce(shape: Shape) async throws {
        let (proxy, proxied, direct) = try await Self.open()
        proxy.arm(.loseAnswer)
        let runs = Atomic(0)
        let (_, position) = try await proxied.sequencedWriteTransaction { handle in
            try Self.write(handle, shape: shape, id: "lost-answer", runs: runs)
        }
        #expect(proxy.cuts == 1)
        #expect(runs.load(ordering: .relaxed) == 1, "a committed batch is not run again")
        #expect(try await Self.count(direct, "lost-answer") == 1)
        if shape == .recordsChange { #expect(position != nil, "the acknowledged change has its position") }
        await proxied.close()
        await direct.close()
        proxy.close()
    }

    @Test(arguments: Shape.allCases)
    func aCommitThatNeverArrivedRunsAgain(shape: Shape) async throws {
        let (proxy, proxied, direct) = try await Self.open()
        proxy.arm(.dropCommit)
        let runs = Atomic(0)
        try await proxied.writeTransaction { handle in
            try Self.write(handle, shape: shape, id: "dropped", runs: runs)
        }
        #expect(proxy.cuts == 1)
        #expect(runs.load(ordering: .relaxed) == 2, "the rolled-back batch ran once more")
        #expect(try await Self.count(direct, "dropped") == 1)
        await proxied.close()
        await direct.close()
        proxy.close()
    }

    @Test func aCommitNobodyCanAskAboutIsReportedAsUnknownNotAsNothingApplied() async throws {
        let (proxy, proxied, direct) = try await Self.open(outcomeWait: .milliseconds(300))
        proxy.arm(.loseAnswer, refusingAfterwards: true)
        let runs = Atomic(0)
        await #expect {
            try await proxied.writeTransaction { handle in
                try Self.write(handle, shape: Shape.readThenWrite, id: "unknown", runs: runs)
            }
        } throws: { error in
            guard case StorageError.outcomeUnknown = error else { return false }
            return true
        }
        // It did commit: "unavailable, nothing was changed" would have been a lie.
        #expect(try await Self.count(direct, "unknown") == 1)
        await proxied.close()
        await direct.close()
        proxy.close()
    }

    private static func write(_ handle: any StorageHandle, shape: Shape, id: String, runs: borrowing Atomic<Int>) throws {
        runs.add(1, ordering: .relaxed)
        switch shape {
        case .readThenWrite:
            _ = try handle.query("SELECT count(*) AS n FROM items", arguments: [])
            try handle.execute("INSERT INTO items(id, count) VALUES(?, 1)", arguments: [.text(id)])
        case .writeOnly:
            try handle.enqueue("INSERT INTO items(id, count) VALUES(?, 1)", arguments: [.text(id)])
        case .recordsChange:
            try handle.execute("INSERT INTO items(id, count) VALUES(?, 1)", arguments: [.text(id)])
            try handle.recordChange(ChangeRecord(kind: .cart, key: id, userID: "u"))
        }
    }

    /// The same schema through the relay and directly.
    private static func open(outcomeWait: Duration = .seconds(5))
        async throws -> (CommitCuttingProxy, PostgresStorage, PostgresStorage) {
        let url = try await StorageBackend.freshSchemaURL()
        let proxy = try CommitCuttingProxy(relayingTo: url)
        var configuration = PostgresConfiguration(url: proxy.url(url), readerCount: 1)
        configuration.commitOutcomeWait = outcomeWait
        let proxied = try await PostgresStorage.open(configuration, migrations: StorageHandleTests.migrations)
        let direct = try await PostgresStorage.open(PostgresConfiguration(url: url, readerCount: 1),
                                                    migrations: StorageHandleTests.migrations)
        return (proxy, proxied, direct)
    }

    private static func count(_ storage: PostgresStorage, _ id: String) async throws -> Int64? {
        try await storage.readTransaction {
            try $0.queryOne("SELECT count(*) AS n FROM items WHERE id = ?", arguments: [.text(id)])?.get("n", as: Int64.self)
        }
    }
}

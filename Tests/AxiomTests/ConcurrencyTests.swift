import Axiom
import AxiomTestSupport
import Testing

@Suite("Concurrent actions on one client")
struct ConcurrencyTests {
    @Test("1,000 concurrent actions from 50 contexts are each applied exactly once")
    func thousandActionsFromFiftyContexts() async throws {
        try await withOrchestrator { orchestrator in
            // Room for every update, so that no observer can lose one however
            // the scheduler runs them.
            try await startStandardRuntime(orchestrator, bufferLimit: 1_000)
            var contexts: [LedgerContext] = []
            for _ in 0..<50 {
                contexts.append(try await orchestrator.createContext(LedgerContext.self, parent: nil))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, context) in contexts.enumerated() {
                    for step in 0..<20 {
                        group.addTask { _ = try await context.send(index * 20 + step) }
                    }
                }
                try await group.waitForAll()
            }
            let ledger = contexts[0].ledger
            let state = try await ledger.call { await $0.state }
            #expect(state.entries.count == 1_000)
            #expect(state.entries.sorted() == Array(0..<1_000))
            // Every context observed every one of the 1,000 updates.
            for context in contexts {
                await eventually { await context.seen.count == 1_000 }
                #expect(await context.seen == state.entries)
            }
            let metrics = try #require(orchestrator.clientMetrics().first { $0.client.hasSuffix("LedgerClient") })
            // The 1,000 writes and the read of the state: a read is a call too.
            #expect(metrics.actions == 1_001)
            #expect(metrics.errors == 0)
        }
    }

    @Test("a refused action is counted as an error and changes nothing")
    func refusedActionCounted() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let context = try await orchestrator.createContext(LedgerContext.self, parent: nil)
            _ = try await context.send(7)
            await #expect(throws: LedgerClient.Failure.duplicate(7)) { _ = try await context.send(7) }
            #expect(await (try await context.ledger.call { await $0.state }).entries == [7])
            let metrics = try #require(orchestrator.clientMetrics().first { $0.client.hasSuffix("LedgerClient") })
            // Two writes and the read of the state.
            #expect(metrics.actions == 3)
            #expect(metrics.errors == 1)
            #expect(metrics.errors * 3 == metrics.actions)
        }
    }
}

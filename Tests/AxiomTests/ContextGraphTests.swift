import Axiom
import AxiomTestSupport
import Testing

@Suite("Context DAG")
struct ContextGraphTests {
    @Test("2.8 an edge that would close a cycle is refused with a thrown error")
    func cycleRefused() async throws {
        try await withOrchestrator { orchestrator in
            try await orchestrator.start()
            let a = try await orchestrator.createContext(NodeContext.self, parent: nil)
            let b = try await a.send(.addChild)
            let c = try await b.send(.addChild)
            #expect(orchestrator.contextRegistry.edgeCount == 2)
            #expect(throws: AxiomError.contextCycle(upstream: c.contextID, downstream: a.contextID)) {
                try orchestrator.connect(upstream: c, downstream: a)
            }
            #expect(throws: AxiomError.contextCycle(upstream: b.contextID, downstream: b.contextID)) {
                try orchestrator.connect(upstream: b, downstream: b)
            }
            #expect(orchestrator.contextRegistry.edgeCount == 2)
            // A shortcut that keeps the graph acyclic is allowed (shared context).
            try orchestrator.connect(upstream: a, downstream: c)
            #expect(orchestrator.contextRegistry.edgeCount == 3)
            #expect(c.upstreamContexts.map(\.contextID) == [a.contextID, b.contextID])
            #expect(a.downstreamContexts.map(\.contextID) == [b.contextID, c.contextID])
            let report = orchestrator.validate()
            #expect(report.check(.contextComposition)?.passed == true)
            #expect(report.contextEdges == 3)
        }
    }

    @Test("releasing a context removes it, its edges, and downstream contexts no one else holds")
    func releaseRemovesSubtree() async throws {
        try await withOrchestrator { orchestrator in
            try await orchestrator.start()
            let session1 = try await orchestrator.createContext(NodeContext.self, parent: nil)
            let session2 = try await orchestrator.createContext(NodeContext.self, parent: nil)
            let child = try await session1.send(.addChild)
            let grandchild = try await child.send(.addChild)
            let shared = try await session1.send(.addChild)
            try orchestrator.connect(upstream: session2, downstream: shared)
            #expect(orchestrator.contextRegistry.count == 5)
            #expect(orchestrator.contextRegistry.edgeCount == 4)

            await orchestrator.releaseContext(session1.contextID)
            #expect(orchestrator.contextRegistry.count == 2)
            #expect(orchestrator.contextRegistry.edgeCount == 1)
            for released in [session1, child, grandchild] {
                #expect(orchestrator.contextRegistry.contains(released.contextID) == false)
                #expect(await released.disappeared == 1)
            }
            // The shared context lives on under its other upstream.
            #expect(await shared.disappeared == 0)
            #expect(shared.upstreamContexts.map(\.contextID) == [session2.contextID])
            #expect(orchestrator.rootContexts.map(\.contextID) == [session2.contextID])

            await orchestrator.releaseContext(session2.contextID)
            #expect(orchestrator.contextRegistry.count == 0)
            #expect(orchestrator.contextRegistry.edgeCount == 0)
            #expect(await shared.disappeared == 1)
        }
    }

    @Test("onAppear runs once when the factory registers a context")
    func appearOnce() async throws {
        try await withOrchestrator { orchestrator in
            try await orchestrator.start()
            let node = try await orchestrator.createContext(NodeContext.self, parent: nil)
            #expect(await node.appeared == 1)
            #expect(orchestrator.contextRegistry.context(node.contextID) != nil)
        }
    }
}

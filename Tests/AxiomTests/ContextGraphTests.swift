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

@Suite("Context DAG: declared downstream types")
struct DeclaredDownstreamTests {
    @Test("4.2 rule 2: a context makes only the downstream types it declares")
    func undeclaredTypeRefused() async throws {
        try await withOrchestrator { orchestrator in
            try await orchestrator.start()
            let leaf = try await orchestrator.createContext(LeafContext.self, parent: nil)
            await #expect(throws: AxiomError.undeclaredDownstream(upstream: String(reflecting: LeafContext.self),
                                                                  downstream: String(reflecting: NodeContext.self))) {
                _ = try await leaf.downstream(NodeContext.self)
            }
            #expect(orchestrator.contextRegistry.count == 1)
        }
    }

    @Test("downstream(_:) makes a context once, and concurrent first uses share it")
    func madeOnceUnderConcurrency() async throws {
        try await withOrchestrator { orchestrator in
            try await orchestrator.start()
            let root = try await orchestrator.createContext(NodeContext.self, parent: nil)
            let ids = try await withThrowingTaskGroup(of: ContextID.self) { group in
                for _ in 0..<32 { group.addTask { try await root.downstream(LeafContext.self).contextID } }
                return try await group.reduce(into: Set<ContextID>()) { $0.insert($1) }
            }
            #expect(ids.count == 1)
            #expect(orchestrator.contextRegistry.count == 2)
            let leaf = try #require(orchestrator.components.descriptor(of: String(reflecting: LeafContext.self)))
            #expect(leaf.instancesLive == 1)
            let node = try #require(orchestrator.components.descriptor(of: String(reflecting: NodeContext.self)))
            #expect(node.downstream.contains(String(reflecting: LeafContext.self)))
        }
    }

    @Test("a type already in the session's graph is shared, not made twice; release takes both")
    func sharedWithinTheGraph() async throws {
        try await withOrchestrator { orchestrator in
            try await orchestrator.start()
            let root = try await orchestrator.createContext(NodeContext.self, parent: nil)
            let child = try await root.downstream(NodeContext.self)
            let leafBelowChild = try await child.downstream(LeafContext.self)
            // The root's own leaf is the one its child already made.
            let leafBelowRoot = try await root.downstream(LeafContext.self)
            #expect(leafBelowRoot.contextID == leafBelowChild.contextID)
            #expect(Set(leafBelowRoot.upstreamContexts.map(\.contextID)) == [root.contextID, child.contextID])
            // Another root's graph is not searched.
            let other = try await orchestrator.createContext(NodeContext.self, parent: nil)
            #expect(try await other.downstream(LeafContext.self).contextID != leafBelowRoot.contextID)
            await orchestrator.releaseContext(root.contextID)
            #expect(orchestrator.contextRegistry.count == 2)
            #expect(orchestrator.validate().passed)
        }
    }

    @Test("a downstream context reached once is found again without the registry; a released one is not")
    func reachedContextsAreKeptUntilReleased() async throws {
        try await withOrchestrator { orchestrator in
            try await orchestrator.start()
            let root = try await orchestrator.createContext(NodeContext.self, parent: nil)
            let leaf = try await root.downstream(LeafContext.self)
            #expect(try await root.downstream(LeafContext.self) === leaf)
            await orchestrator.releaseContext(leaf.contextID)
            #expect(leaf.identity.isReleased)
            #expect(!root.identity.isReleased)
            // Released below a live root: the next use makes a new one, in the DAG.
            let again = try await root.downstream(LeafContext.self)
            #expect(again !== leaf)
            #expect(orchestrator.contextRegistry.contains(again.contextID))
            #expect(root.downstreamContexts.map(\.contextID) == [again.contextID])
            await orchestrator.releaseContext(root.contextID)
            #expect(root.identity.isReleased && again.identity.isReleased)
            #expect(orchestrator.contextRegistry.count == 0)
        }
    }
}

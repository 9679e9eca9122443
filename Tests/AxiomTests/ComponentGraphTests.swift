import Axiom
import AxiomTestSupport
import Testing

/// What the context factory records in the component graph: the same
/// whether a type is made once or many times, and whichever way it is made
/// (`createContext`, `downstream(_:)`, an initialiser that fails). The
/// factory describes each context type once and records a context's
/// clients when it is made, not as they are resolved; these pin that the
/// graph reads as it did when it did both on every make.
@Suite("Component graph: what the context factory records")
struct ComponentGraphTests {
    static func name(_ type: Any.Type) -> String { String(reflecting: type) }

    @Test("a type first seen at its first make is described with its downstream types, transitively, and only once")
    func describedOnFirstMake() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let components = orchestrator.components
            #expect(components.descriptor(of: Self.name(NodeContext.self)) == nil)
            let root = try await orchestrator.createContext(NodeContext.self, parent: nil)
            let node = try #require(components.descriptor(of: Self.name(NodeContext.self)))
            #expect(node.kind == .context && node.lifetime == .perUsage)
            #expect(node.downstream == [CheckoutContext.self, LeafContext.self, NodeContext.self].map(Self.name).sorted())
            for type in [CheckoutContext.self, LeafContext.self] as [any Context.Type] {
                let described = try #require(components.descriptor(of: Self.name(type)))
                #expect(described.kind == .context && described.instancesCreated == 0 && described.downstream.isEmpty)
            }
            let listed = components.descriptors.map(\.type)
            for _ in 0..<3 { _ = try await orchestrator.createContext(NodeContext.self, parent: root) }
            #expect(components.descriptors.map(\.type) == listed)
            let after = try #require(components.descriptor(of: Self.name(NodeContext.self)))
            #expect(after.downstream == node.downstream)
            #expect(after.dependencies == [Self.name(NodeContext.self)])
            #expect(after.instancesCreated == 4 && after.instancesLive == 4)
        }
    }

    @Test("a presentation binding that is refused describes no context type")
    func refusedBindingDescribesNothing() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            try orchestrator.registerPresentation("CartRoutes", boundTo: LedgerContext.self)
            #expect(throws: AxiomError.self) {
                try orchestrator.registerPresentation("CartRoutes", boundTo: LeafContext.self)
            }
            #expect(orchestrator.components.descriptor(of: Self.name(LedgerContext.self))?.kind == .context)
            #expect(orchestrator.components.descriptor(of: Self.name(LeafContext.self)) == nil)
        }
    }

    @Test("a context's clients and the edge from its upstream are recorded by either factory path")
    func clientsAndUpstreamRecorded() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let components = orchestrator.components
            let root = try await orchestrator.createContext(NodeContext.self, parent: nil)
            _ = try await root.downstream(CheckoutContext.self)
            let checkout = try #require(components.descriptor(of: Self.name(CheckoutContext.self)))
            #expect(checkout.dependencies == [Self.name(LedgerClient.self), Self.name(TaxClient.self)].sorted())
            #expect(checkout.instancesCreated == 1 && checkout.instancesLive == 1)
            #expect(components.descriptor(of: Self.name(NodeContext.self))?.dependencies
                    == [Self.name(CheckoutContext.self)])
            _ = try await orchestrator.createContext(LedgerContext.self, parent: nil)
            #expect(components.descriptor(of: Self.name(LedgerContext.self))?.dependencies
                    == [Self.name(LedgerClient.self)])
            #expect(components.contextsCreatedByFactory == 3)
            let report = orchestrator.validate()
            #expect(report.passed, "\(report.failures)")
        }
    }

    @Test("the clients an initialiser resolved before it failed are recorded; the context is not counted")
    func failedInitRecordsItsClients() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            await #expect(throws: FailsAfterClientContext.Refused()) {
                _ = try await orchestrator.createContext(FailsAfterClientContext.self, parent: nil)
            }
            let failed = try #require(orchestrator.components.descriptor(of: Self.name(FailsAfterClientContext.self)))
            #expect(failed.dependencies == [Self.name(LedgerClient.self)])
            #expect(failed.instancesCreated == 0 && failed.instancesLive == 0)
            #expect(orchestrator.components.contextsCreatedByFactory == 0)
            #expect(orchestrator.contextRegistry.count == 0)
        }
    }

    @Test("2.9 a token kept past its initialiser resolves no client, and the attempt is a violation")
    func smuggledTokenResolvesNoClient() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let smuggler = try await orchestrator.createContext(SmugglerContext.self, parent: nil)
            await #expect(throws: AxiomError.contextCreationOutsideFactory(
                "token for \(Self.name(SmugglerContext.self)) used after its context was created")) {
                _ = try await smuggler.resolveLedger()
            }
            #expect(orchestrator.components.descriptor(of: Self.name(SmugglerContext.self))?.dependencies == [])
            #expect(orchestrator.validate().check(.orchestratorResponsibility)?.passed == false)
        }
    }
}

import Axiom
import AxiomTestSupport
import Foundation
import Testing

@Suite("Orchestrator")
struct OrchestratorTests {
    @Test("a valid application passes every run-time check, and the report encodes as JSON")
    func validApplicationPasses() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            try orchestrator.registerPresentation("LedgerRoutes", boundTo: LedgerContext.self)
            let root = try await orchestrator.createContext(NodeContext.self, parent: nil)
            _ = try await root.send(.addChild)
            _ = try await orchestrator.createContext(CheckoutContext.self, parent: root)
            let report = orchestrator.validate()
            #expect(report.passed, "\(report.failures)")
            #expect(report.checks.map(\.constraint) == ArchitectureConstraint.allCases.map(\.rawValue))
            let json = try JSONEncoder().encode(report)
            let decoded = try JSONDecoder().decode(ValidationReport.self, from: json)
            #expect(decoded == report)
            let kinds = Set(report.components.map(\.kind))
            #expect(kinds == [.orchestrator, .capability, .statefulClient, .statelessClient, .ownedState, .context,
                              .presentation])
            let checkout = try #require(report.components.first { $0.type.hasSuffix("CheckoutContext") })
            #expect(checkout.dependencies.map { $0.components(separatedBy: ".").last! }.sorted()
                    == ["LedgerClient", "TaxClient"])
        }
    }

    @Test("2.12 each client is made exactly once and shared by every context")
    func clientSingleton() async throws {
        try await withOrchestrator { orchestrator in
            let made = CallCounter()
            try await orchestrator.registerCapability(ToggleCapability.self) { ToggleCapability() }
            try orchestrator.registerClient(LedgerClient.self, dependencies: [ToggleCapability.self]) { resolver in
                made.increment()
                return LedgerClient(store: try resolver.handle(ToggleCapability.self), bufferLimit: 16)
            }
            #expect(throws: AxiomError.clientAlreadyRegistered(String(reflecting: LedgerClient.self))) {
                try orchestrator.registerClient(LedgerClient.self, dependencies: []) { _ in
                    throw AxiomError.orchestratorNotStarted
                }
            }
            try await orchestrator.start()
            var clients: [LedgerClient] = []
            for _ in 0..<50 {
                clients.append(try await orchestrator.createContext(LedgerContext.self, parent: nil).ledger.call { $0 })
            }
            #expect(made.value == 1)
            #expect(clients.allSatisfy { $0 === clients[0] })
            #expect(await clients[0].activations == 1)
            let descriptor = try #require(orchestrator.components.descriptor(of: String(reflecting: LedgerClient.self)))
            #expect(descriptor.instancesCreated == 1 && descriptor.lifetime == .singleton)
            #expect(orchestrator.validate().check(.clientLifetime)?.passed == true)
            // Registration closes at start: no second instance can be added later.
            #expect(throws: AxiomError.orchestratorAlreadyStarted) {
                try orchestrator.registerClient(TaxClient.self, dependencies: [RateCapability.self]) { resolver in
                    TaxClient(rates: try resolver.handle(RateCapability.self))
                }
            }
        }
    }

    @Test("2.13 one state per state type, and all contexts see the same state")
    func stateSingleton() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let a = try await orchestrator.createContext(LedgerContext.self, parent: nil)
            let b = try await orchestrator.createContext(LedgerContext.self, parent: nil)
            _ = try await a.send(1)
            _ = try await b.send(2)
            #expect(await (try await a.ledger.call { await $0.state }) == (try await b.ledger.call { await $0.state }))
            #expect(await (try await a.ledger.call { await $0.state }).entries == [1, 2])
            let state = try #require(orchestrator.components.descriptor(of: String(reflecting: LedgerState.self)))
            #expect(state.kind == .ownedState && state.lifetime == .singleton)
            #expect(state.owners == [String(reflecting: LedgerClient.self)])
            #expect(orchestrator.validate().check(.stateLifetime)?.passed == true)
        }
    }

    @Test("2.7 and 2.13: two clients owning one state type make start refuse")
    func sharedStateRefusesStart() async throws {
        try await withOrchestrator { orchestrator in
            try await orchestrator.registerCapability(ToggleCapability.self) { ToggleCapability() }
            try orchestrator.registerClient(LedgerClient.self, dependencies: [ToggleCapability.self]) { resolver in
                LedgerClient(store: try resolver.handle(ToggleCapability.self), bufferLimit: 16)
            }
            try orchestrator.registerClient(ShadowLedgerClient.self, dependencies: []) { _ in ShadowLedgerClient() }
            do {
                try await orchestrator.start()
                Issue.record("start must refuse")
            } catch AxiomError.constraintViolations(let report) {
                #expect(report.passed == false)
                #expect(Set(report.failures.map(\.constraint)) == ["2.7", "2.13"])
                #expect(report.check(.stateOwnership)?.violations.first?.contains("owned by 2 clients") == true)
            }
            #expect(orchestrator.isRunning == false)
            await #expect(throws: AxiomError.orchestratorShutDown) {
                _ = try await orchestrator.createContext(NodeContext.self, parent: nil)
            }
        }
    }

    @Test("2.15 a second orchestrator cannot exist while one lives")
    func orchestratorSingleton() async throws {
        try await withOrchestrator { orchestrator in
            #expect(throws: AxiomError.orchestratorAlreadyRunning) { _ = try AxiomOrchestrator() }
            let report = orchestrator.validate()
            #expect(report.check(.orchestratorLifetime)?.passed == true)
            #expect(report.components.filter { $0.kind == .orchestrator }.count == 1)
        }
        // Once shut down, the process may make its (next) orchestrator.
        let next = try await acquireOrchestrator()
        await next.shutdown()
    }

    @Test("2.11 every creation is a new context instance")
    func contextsAreNewInstances() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let a = try await orchestrator.createContext(LedgerContext.self, parent: nil)
            let b = try await orchestrator.createContext(LedgerContext.self, parent: nil)
            #expect(a !== b)
            #expect(a.contextID != b.contextID)
            let descriptor = try #require(orchestrator.components.descriptor(of: String(reflecting: LedgerContext.self)))
            #expect(descriptor.lifetime == .perUsage)
            #expect(descriptor.instancesCreated == 2 && descriptor.instancesLive == 2)
            await orchestrator.releaseContext(a.contextID)
            #expect(orchestrator.components.descriptor(of: String(reflecting: LedgerContext.self))?.instancesLive == 1)
            #expect(orchestrator.validate().check(.contextLifetime)?.passed == true)
        }
    }

    @Test("2.9 a context cannot make another context from its creation token")
    func tokenReuseInInitRefused() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            await #expect(throws: AxiomError.self) {
                _ = try await orchestrator.createContext(GreedyContext.self, parent: nil)
            }
            #expect(orchestrator.contextRegistry.count == 0)
            let report = orchestrator.validate()
            #expect(report.check(.orchestratorResponsibility)?.passed == false)
            #expect(report.check(.orchestratorResponsibility)?.violations
                    == ["token for \(String(reflecting: GreedyContext.self)) claimed by a second context"])
        }
    }

    @Test("2.9 a token kept past its initialiser is void")
    func smuggledTokenRefused() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let smuggler = try await orchestrator.createContext(SmugglerContext.self, parent: nil)
            #expect(orchestrator.validate().check(.orchestratorResponsibility)?.passed == true)
            await #expect(throws: AxiomError.contextCreationOutsideFactory(
                "token for \(String(reflecting: SmugglerContext.self)) used after its context was created")) {
                _ = try await smuggler.send(0)
            }
            #expect(orchestrator.contextRegistry.count == 1)
            #expect(orchestrator.validate().check(.orchestratorResponsibility)?.passed == false)
        }
    }

    @Test("a context cannot obtain a client the orchestrator did not make")
    func unregisteredClientRefused() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            await #expect(throws: AxiomError.clientNotRegistered(String(reflecting: ShadowLedgerClient.self))) {
                _ = try await orchestrator.createContext(UnregisteredClientContext.self, parent: nil)
            }
        }
    }

    @Test("contexts are refused before start and after shutdown")
    func factoryOnlyWhileRunning() async throws {
        let orchestrator = try await acquireOrchestrator()
        await #expect(throws: AxiomError.orchestratorNotStarted) {
            _ = try await orchestrator.createContext(NodeContext.self, parent: nil)
        }
        try await orchestrator.start()
        let node = try await orchestrator.createContext(NodeContext.self, parent: nil)
        await orchestrator.shutdown()
        #expect(await node.disappeared == 1)
        #expect(orchestrator.contextRegistry.count == 0)
        await #expect(throws: AxiomError.orchestratorShutDown) {
            _ = try await orchestrator.createContext(NodeContext.self, parent: nil)
        }
    }

    @Test("2.4 and 2.10 a presentation is bound to exactly one context, per usage")
    func presentationBinding() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            try orchestrator.registerPresentation("CartRoutes", boundTo: LedgerContext.self)
            try orchestrator.registerPresentation("CartRoutes", boundTo: LedgerContext.self)
            #expect(throws: AxiomError.presentationAlreadyBound(presentation: "CartRoutes",
                                                               context: String(reflecting: LedgerContext.self))) {
                try orchestrator.registerPresentation("CartRoutes", boundTo: CheckoutContext.self)
            }
            let presentation = try #require(orchestrator.components.descriptor(of: "CartRoutes"))
            #expect(presentation.dependencies == [String(reflecting: LedgerContext.self)])
            #expect(presentation.lifetime == .perUsage)
            let report = orchestrator.validate()
            #expect(report.check(.presentationContextBinding)?.passed == true)
            #expect(report.check(.presentationLifetime)?.passed == true)
        }
    }

    @Test("client activation failure refuses start")
    func activationFailureRefusesStart() async throws {
        try await withOrchestrator { orchestrator in
            try orchestrator.registerClient(FailingClient.self, dependencies: []) { _ in FailingClient() }
            await #expect(throws: AxiomError.clientActivationFailed(client: String(reflecting: FailingClient.self),
                                                                    reason: "refused")) {
                try await orchestrator.start()
            }
            #expect(orchestrator.isRunning == false)
        }
    }
}

/// A stateless client whose activation fails.
actor FailingClient: StatelessClient {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "refused" }
    }

    func send(_ action: Int) async throws {}

    func activate() async throws { throw Refused() }

    func deactivate() async {}
}

/// A context that keeps what the composition root gave its type.
final class ComposedContext: Context {
    let identity: ContextIdentity
    let parts: [String]?

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        parts = creation.composition([String].self)
    }
}

@Suite("Composition")
struct CompositionTests {
    @Test("a context type gets the parts its orchestrator composed for it, fixed before start")
    func partsReachTheComposedTypeOnly() async throws {
        try await withOrchestrator { orchestrator in
            try orchestrator.compose(ComposedContext.self, with: ["cart", "orders"])
            try await startStandardRuntime(orchestrator)
            #expect(throws: AxiomError.orchestratorAlreadyStarted) {
                try orchestrator.compose(ComposedContext.self, with: ["wishlist"])
            }
            let composed = try await orchestrator.createContext(ComposedContext.self, parent: nil)
            #expect(composed.parts == ["cart", "orders"])
            #expect(try await orchestrator.createContext(ComposedContext.self, parent: nil).parts == ["cart", "orders"])
        }
        // Held by the orchestrator, not the process: the next one composes its own.
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            #expect(try await orchestrator.createContext(ComposedContext.self, parent: nil).parts == nil)
        }
    }
}

import Axiom
import AxiomTestSupport
import Testing

@Suite("Capability registry")
struct CapabilityRegistryTests {
    @Test("register and resolve by type; a missing capability is a thrown error")
    func registerResolve() async throws {
        try await withOrchestrator { orchestrator in
            try await orchestrator.registerCapability(RateCapability.self) { RateCapability(percent: 7) }
            #expect(try orchestrator.capabilityRegistry.resolve(RateCapability.self).percent == 7)
            #expect(throws: AxiomError.capabilityNotRegistered(String(reflecting: ToggleCapability.self))) {
                try orchestrator.capabilityRegistry.resolve(ToggleCapability.self)
            }
            await #expect(throws: AxiomError.capabilityAlreadyRegistered(String(reflecting: RateCapability.self))) {
                try await orchestrator.registerCapability(RateCapability.self) { RateCapability(percent: 8) }
            }
        }
    }

    @Test("2.14 an unavailable capability is re-created and clients use the new instance")
    func transientRecreation() async throws {
        try await withOrchestrator { orchestrator in
            try await startStandardRuntime(orchestrator)
            let context = try await orchestrator.createContext(LedgerContext.self, parent: nil)
            let first = try await context.send(1)
            first.setAvailable(false)
            await #expect(throws: AxiomError.capabilityUnavailable(String(reflecting: ToggleCapability.self))) {
                _ = try await context.send(2)
            }
            let outcomes = await orchestrator.recoverCapabilities()
            let toggle = try #require(outcomes.first { $0.capability.hasSuffix("ToggleCapability") })
            #expect(!toggle.wasAvailable && toggle.recreated && toggle.isAvailable)
            #expect(toggle.generation == 2 && toggle.error == nil)
            let rate = try #require(outcomes.first { $0.capability.hasSuffix("RateCapability") })
            #expect(rate.recreated == false && rate.generation == 1)
            // The same client, holding the same handle, now uses the new instance.
            let second = try await context.send(3)
            #expect(second !== first)
            #expect(second.serial > first.serial)
            #expect(await (try await context.ledger.call { await $0.state }).entries == [1, 3])
            let descriptor = try #require(orchestrator.components.descriptor(of: String(reflecting: ToggleCapability.self)))
            #expect(descriptor.lifetime == .transient)
            #expect(descriptor.instancesCreated == 2)
            #expect(orchestrator.validate().check(.capabilityLifetime)?.passed == true)
        }
    }

    @Test("a client factory resolves only the capabilities it declared")
    func undeclaredCapabilityRefused() async throws {
        try await withOrchestrator { orchestrator in
            try await orchestrator.registerCapability(ToggleCapability.self) { ToggleCapability() }
            try await orchestrator.registerCapability(RateCapability.self) { RateCapability(percent: 1) }
            try orchestrator.registerClient(TaxClient.self, dependencies: [ToggleCapability.self]) { resolver in
                TaxClient(rates: try resolver.handle(RateCapability.self))
            }
            await #expect(throws: AxiomError.undeclaredDependency(component: String(reflecting: TaxClient.self),
                                                                  dependency: String(reflecting: RateCapability.self))) {
                try await orchestrator.start()
            }
            #expect(orchestrator.isRunning == false)
        }
    }
}

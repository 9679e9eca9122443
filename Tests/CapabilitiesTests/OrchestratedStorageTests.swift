import Axiom
import Foundation
import Testing
@testable import Capabilities

/// The orchestrator is a process singleton: wait for the claim, always shut down.
private func withOrchestrator<R>(_ body: (AxiomOrchestrator) async throws -> R) async throws -> R {
    var made: AxiomOrchestrator?
    while made == nil {
        do {
            made = try AxiomOrchestrator()
        } catch AxiomError.orchestratorAlreadyRunning {
            try await Task.sleep(for: .milliseconds(2))
        }
    }
    let orchestrator = made!
    do {
        let result = try await body(orchestrator)
        await orchestrator.shutdown()
        return result
    } catch {
        await orchestrator.shutdown()
        throw error
    }
}

@Suite("Storage as an Axiom capability")
struct OrchestratedStorageTests {
    @Test("SQLite storage registers through its async factory; a re-created instance sees the committed data")
    func storageThroughOrchestrator() async throws {
        let directory = try TempDirectory()
        try await withOrchestrator { orchestrator in
            try await orchestrator.registerCapability(SQLiteStorage.self) { try await Fixture.open(directory) }
            let first = try orchestrator.capabilityRegistry.resolve(SQLiteStorage.self)
            try await Fixture.insertUser(first, id: "u1")
            let second = try await orchestrator.capabilityRegistry.recreate(SQLiteStorage.self)
            #expect(second !== first)
            #expect(try orchestrator.capabilityRegistry.resolve(SQLiteStorage.self) === second)
            #expect(try await Fixture.userCount(second) == 1)
            let descriptor = try #require(orchestrator.components.descriptor(of: String(reflecting: SQLiteStorage.self)))
            #expect(descriptor.kind == .capability && descriptor.lifetime == .transient)
            #expect(descriptor.instancesCreated == 2)
        }
    }
}

import Axiom
import AxiomTestSupport
import Foundation
import Testing
@testable import Capabilities

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

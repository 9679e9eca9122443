import Axiom
import Foundation
@testable import AxiomServer

/// An `AxiomService` started in this test process (no binary, no socket
/// traffic) on a temporary database, for tests that read what it serves.
enum InProcessService {
    /// Starts a service with `configure`'s options, hands it to `read`, and
    /// shuts it down again.
    static func read<T>(_ configure: (inout ServerOptions) -> Void = { _ in },
                        _ read: (AxiomService) -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-service-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = ServerOptions()
        options.port = 0
        options.databasePath = directory.appendingPathComponent("axiom.db").path
        configure(&options)
        // The orchestrator is one per process: wait while another test's lives.
        var started: AxiomService?
        while started == nil {
            do {
                started = try await AxiomService.start(options: options, logger: .disabled)
            } catch AxiomError.orchestratorAlreadyRunning {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        let service = started!
        let value = read(service)
        await service.shutdown()
        return value
    }
}

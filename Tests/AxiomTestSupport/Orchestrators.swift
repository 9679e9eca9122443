import Axiom

/// The orchestrator is a process singleton (constraint 2.15) and test
/// suites run in parallel: each test claims it in turn, waiting while
/// another test's lives, and always shuts it down.
public func acquireOrchestrator() async throws -> AxiomOrchestrator {
    while true {
        do {
            return try AxiomOrchestrator()
        } catch AxiomError.orchestratorAlreadyRunning {
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// Runs `body` with a freshly claimed orchestrator and shuts it down after,
/// whether `body` throws or not.
public func withOrchestrator<R>(_ body: (AxiomOrchestrator) async throws -> R) async throws -> R {
    let orchestrator = try await acquireOrchestrator()
    do {
        let result = try await body(orchestrator)
        await orchestrator.shutdown()
        return result
    } catch {
        await orchestrator.shutdown()
        throw error
    }
}

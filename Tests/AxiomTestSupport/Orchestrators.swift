import Axiom
import Capabilities

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
    return try await withCleanup({ await orchestrator.shutdown() }) { try await body(orchestrator) }
}

extension AxiomOrchestrator {
    /// Shuts down (deactivating the clients) and then closes the storage
    /// capability in place, SQLite or PostgreSQL, as a process's end does.
    public func shutdownClosingStorage() async {
        let sqlite = try? capabilityRegistry.resolve(SQLiteStorage.self)
        let postgres = try? capabilityRegistry.resolve(PostgresStorage.self)
        await shutdown()
        await sqlite?.close()
        await postgres?.close()
    }
}

/// Runs `body`, then `cleanup`, whether `body` throws or not: the `defer`
/// an async stop or close cannot be.
public func withCleanup<R>(_ cleanup: () async -> Void, _ body: () async throws -> R) async throws -> R {
    do {
        let result = try await body()
        await cleanup()
        return result
    } catch {
        await cleanup()
        throw error
    }
}

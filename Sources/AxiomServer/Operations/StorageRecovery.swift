import Axiom
import HTTPServer

/// Watches the capabilities' availability and, while any is unavailable,
/// asks the orchestrator to probe and re-create it (constraint 2.14), so
/// the service recovers on its own once the disk has room again or the
/// data directory is back. Logs every change of availability.
struct StorageRecovery: Sendable {
    let orchestrator: AxiomOrchestrator
    let logger: ServerLogger
    /// Run at the start of every round, before availability is read
    /// (`ServiceStorage.watch`: PostgreSQL's probe).
    var watch: @Sendable () async -> Void = {}

    func run(every interval: Duration) async {
        var known: [String: Bool] = [:]
        for entry in orchestrator.capabilityRegistry.availability { known[entry.capability] = entry.isAvailable }
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            await watch()
            let current = orchestrator.capabilityRegistry.availability
            for entry in current where known[entry.capability] != entry.isAvailable {
                known[entry.capability] = entry.isAvailable
                log(entry.capability, available: entry.isAvailable, recreated: false, error: nil)
            }
            guard current.contains(where: { !$0.isAvailable }) else { continue }
            for outcome in await orchestrator.recoverCapabilities() where outcome.isAvailable != known[outcome.capability] {
                known[outcome.capability] = outcome.isAvailable
                log(outcome.capability, available: outcome.isAvailable, recreated: outcome.recreated, error: outcome.error)
            }
        }
    }

    private func log(_ capability: String, available: Bool, recreated: Bool, error: String?) {
        var fields = [("capability", capability)]
        if let error { fields.append(("error", error)) }
        if recreated { fields.append(("recreated", "true")) }
        logger.log(available ? .notice : .warning, available ? "capability_available" : "capability_unavailable", fields)
    }
}

import Axiom
import Foundation
import Glibc
import Synchronization

/// Runs `body` with the process's orchestrator and always shuts it down.
/// Tests run in parallel but the orchestrator is a process singleton
/// (constraint 2.15), so each test waits its turn for the claim.
func withOrchestrator<R>(_ body: (AxiomOrchestrator) async throws -> R) async throws -> R {
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

func acquireOrchestrator() async throws -> AxiomOrchestrator {
    while true {
        do {
            return try AxiomOrchestrator()
        } catch AxiomError.orchestratorAlreadyRunning {
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// Registers the fixture components and starts: a ledger (stateful) client
/// over a toggle capability, and a tax (stateless) client over a rate table.
func startStandardRuntime(_ orchestrator: AxiomOrchestrator, bufferLimit: Int = 256) async throws {
    try await orchestrator.registerCapability(ToggleCapability.self) { ToggleCapability() }
    try await orchestrator.registerCapability(RateCapability.self) { RateCapability(percent: 20) }
    try orchestrator.registerClient(LedgerClient.self, dependencies: [ToggleCapability.self]) { resolver in
        LedgerClient(store: try resolver.handle(ToggleCapability.self), bufferLimit: bufferLimit)
    }
    try orchestrator.registerClient(TaxClient.self, dependencies: [RateCapability.self]) { resolver in
        TaxClient(rates: try resolver.handle(RateCapability.self))
    }
    try await orchestrator.start()
}

/// Waits until `condition` holds, checking after each short pause.
/// Progress-based: no deadline is asserted; a condition that never holds
/// shows up as a hung test.
func eventually(_ condition: () async -> Bool) async {
    while await !condition() {
        try? await Task.sleep(for: .milliseconds(1))
    }
}

/// Resident set size of this process, from /proc/self/statm.
func residentBytes() throws -> Int {
    let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { throw StatmUnreadable(text: statm) }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

struct StatmUnreadable: Error {
    let text: String
}

/// Counts calls from any thread.
final class CallCounter: Sendable {
    private let count = Mutex(0)

    func increment() { count.withLock { $0 += 1 } }

    var value: Int { count.withLock { $0 } }
}

import Axiom
import AxiomTestSupport
import Foundation
import Glibc
import Synchronization

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
/// Progress-based: no deadline is asserted.
func eventually(_ condition: () async -> Bool) async {
    // Bounded (about 20 s at the least): a condition that never holds fails
    // the expectations that follow instead of hanging the suite.
    for _ in 0..<20_000 {
        if await condition() { return }
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

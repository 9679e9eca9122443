import Synchronization

/// The process-wide claim that makes the orchestrator a singleton
/// (constraint 2.15): a second orchestrator cannot be made while one holds it.
final class OrchestratorLease: Sendable {
    private static let live = Atomic<Int>(0)
    /// Set only once the claim succeeded: a refused lease is never fully
    /// initialised, so its deinit (which releases) does not run.
    private let held: Atomic<Bool>

    init() throws {
        guard Self.live.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else {
            throw AxiomError.orchestratorAlreadyRunning
        }
        held = Atomic(true)
    }

    static var liveCount: Int { live.load(ordering: .acquiring) }

    /// Gives the claim back; later calls do nothing.
    func release() {
        if held.exchange(false, ordering: .acquiringAndReleasing) {
            Self.live.subtract(1, ordering: .acquiringAndReleasing)
        }
    }

    deinit {
        release()
    }
}

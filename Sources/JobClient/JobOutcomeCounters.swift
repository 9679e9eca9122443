import Synchronization

/// What this process's runner finished, per kind, since start-up: counters
/// (`/metrics`), summed across replicas by whoever scrapes them all.
public final class JobOutcomeCounters: Sendable {
    public struct Counts: Sendable, Hashable {
        public var succeeded = 0, failedAttempts = 0, died = 0

        public init() {}
    }

    private let counts = Mutex<[String: Counts]>([:])

    init() {}

    func record(_ kind: String, _ change: (inout Counts) -> Void) {
        counts.withLock { change(&$0[kind, default: Counts()]) }
    }

    /// Every kind finished at least once, by name.
    public var snapshot: [String: Counts] { counts.withLock { $0 } }
}

import Synchronization

/// Where the service is in its life, for readiness.
final class Lifecycle: Sendable {
    private let shuttingDown = Atomic<Bool>(false)

    var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }

    func beginShutdown() { shuttingDown.store(true, ordering: .relaxed) }
}

import Axiom
import Synchronization

/// A time source the test advances by hand, so TTL tests never sleep.
final class ManualClock: TimeSource {
    private let now = Mutex(Duration.seconds(1_000))

    func monotonicNow() -> Duration { now.withLock { $0 } }

    func advance(by step: Duration) { now.withLock { $0 += step } }
}

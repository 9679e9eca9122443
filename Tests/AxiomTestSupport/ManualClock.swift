import Axiom
import Synchronization

/// A time source the test advances by hand, so TTL and back-off tests never
/// sleep.
public final class ManualClock: TimeSource {
    private let now: Mutex<Duration>

    public init(start: Duration = .seconds(1_000)) {
        now = Mutex(start)
    }

    public func monotonicNow() -> Duration { now.withLock { $0 } }

    public func advance(by step: Duration) { now.withLock { $0 += step } }
}

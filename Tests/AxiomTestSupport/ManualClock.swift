import Axiom
import Synchronization

/// A time source the test advances by hand, so TTL, expiry and back-off
/// tests never sleep. `advance` moves the monotonic and the wall clock
/// together, as real time does.
public final class ManualClock: TimeSource {
    private let now: Mutex<(monotonic: Duration, wall: Duration)>

    /// `wall` defaults to 2026-01-01T00:00:00Z.
    public init(start: Duration = .seconds(1_000), wall: Duration = .seconds(1_767_225_600)) {
        now = Mutex((start, wall))
    }

    public func monotonicNow() -> Duration { now.withLock { $0.monotonic } }

    public func wallClockNow() -> Duration { now.withLock { $0.wall } }

    public func advance(by step: Duration) {
        now.withLock {
            $0.monotonic += step
            $0.wall += step
        }
    }
}

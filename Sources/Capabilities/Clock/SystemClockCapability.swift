import Axiom
import Glibc
import Synchronization

/// The system clocks: monotonic time (`CLOCK_MONOTONIC`, for expiry and
/// durations, immune to wall-clock steps) and wall time (for timestamps).
/// Because the monotonic origin is the kernel's, a re-created instance
/// continues the same timeline, so transient re-creation never disturbs a
/// session's idle timer.
public final class SystemClockCapability: Capability, TimeSource {
    private let available = Atomic<Bool>(true)

    public init() {}

    public var isAvailable: Bool { available.load(ordering: .relaxed) }

    public func checkAvailability() async -> Bool {
        var spec = timespec()
        let ok = clock_gettime(CLOCK_MONOTONIC, &spec) == 0 && clock_gettime(CLOCK_REALTIME, &spec) == 0
        available.store(ok, ordering: .relaxed)
        return ok
    }

    public func monotonicNow() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }

    public func wallClockNow() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }
}

import Glibc

/// Monotonic time for deadlines (immune to wall-clock changes).
enum MonotonicClock {
    static func nowNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}

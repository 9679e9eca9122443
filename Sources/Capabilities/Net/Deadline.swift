/// A point on the monotonic clock by which a blocking step must finish;
/// poll(2) waits at most what remains of it.
struct Deadline: Sendable {
    let instant: ContinuousClock.Instant

    init(after duration: Duration) {
        instant = .now.advanced(by: duration)
    }

    /// Milliseconds left, rounded up so a wait never ends early; 0 once passed.
    var remainingMilliseconds: Int32 {
        let left = ContinuousClock.now.duration(to: instant)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    var hasPassed: Bool { ContinuousClock.now >= instant }
}

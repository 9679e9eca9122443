/// Time for expiry and timestamps. Injected, so that tests advance it by
/// hand instead of sleeping through a real TTL; the server passes the clock
/// capability. Clients read time only from here (never `Date()`), so a test
/// can move a session past its expiry.
public protocol TimeSource: Sendable {
    /// Time since an arbitrary fixed origin; never decreases.
    func monotonicNow() -> Duration

    /// Wall-clock time since 1970-01-01T00:00:00Z (timestamps, expiry
    /// instants stored in the database).
    func wallClockNow() -> Duration
}

extension TimeSource {
    /// `wallClockNow()` in whole milliseconds, as timestamps are stored.
    public func millisecondsSince1970() -> Int64 {
        let (seconds, attoseconds) = wallClockNow().components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

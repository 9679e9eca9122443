/// Monotonic time for idle expiry. Injected, so that tests advance it by hand
/// instead of sleeping through a real TTL; the server passes the clock
/// capability.
public protocol TimeSource: Sendable {
    /// Time since an arbitrary fixed origin; never decreases.
    func monotonicNow() -> Duration
}

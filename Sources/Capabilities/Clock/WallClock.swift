import FoundationEssentials

/// Wall-clock time for what is stated in real instants: a payment's
/// `expires_at`, a webhook's signed timestamp. Injected (the clock
/// capability in the server), so tests move time instead of sleeping.
public protocol WallClock: Sendable {
    func now() -> Date
}

extension SystemClockCapability: WallClock {}

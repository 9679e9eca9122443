/// When a request body being read must have made more progress. Three
/// limits, whichever comes first: no byte for `stallTimeout`; an average
/// rate below `minRate` bytes/s once `grace` has passed; the whole body not
/// in after `totalTimeout`. The stall limit alone let an attack hold 10,500
/// connections with one byte every 5 s (each byte reset it); the rate and
/// total limits are what end those (Apache's mod_reqtimeout `MinRate` is the
/// model). Pure arithmetic on monotonic nanoseconds, so it is tested without
/// sockets or clocks.
struct BodyProgressRule: Sendable, Equatable {
    /// Which limit a body missed.
    enum Shortfall: Equatable {
        case stalled
        case tooSlow
        case tooLong
    }

    var stallTimeout: Duration
    /// Bytes per second; 0 turns the rate limit off.
    var minRate: Int
    var grace: Duration
    var totalTimeout: Duration

    /// The instant (monotonic ns) at which the body misses a limit unless
    /// more bytes arrive before it; recomputed whenever bytes arrive.
    func deadline(startedAt: Int64, lastProgressAt: Int64, received: Int) -> Int64 {
        var due = min(lastProgressAt + stallTimeout.nanoseconds, startedAt + totalTimeout.nanoseconds)
        if minRate > 0 {
            // received / elapsed < minRate exactly when elapsed > received / minRate.
            let rateBound = Int64(received) * 1_000_000_000 / Int64(minRate)
            due = min(due, startedAt + max(grace.nanoseconds, rateBound))
        }
        return due
    }

    /// Which limit has been missed at `now`, if any.
    func shortfall(startedAt: Int64, lastProgressAt: Int64, received: Int, now: Int64) -> Shortfall? {
        if now >= startedAt + totalTimeout.nanoseconds { return .tooLong }
        if now >= lastProgressAt + stallTimeout.nanoseconds { return .stalled }
        if minRate > 0, now >= deadline(startedAt: startedAt, lastProgressAt: lastProgressAt, received: received) {
            return .tooSlow
        }
        return nil
    }

    func detail(_ shortfall: Shortfall) -> String {
        switch shortfall {
        case .stalled: "The request body stopped arriving."
        case .tooSlow: "The request body arrived slower than \(minRate) bytes per second."
        case .tooLong: "The request body did not arrive within \(totalTimeout.components.seconds) second\(totalTimeout.components.seconds == 1 ? "" : "s")."
        }
    }
}

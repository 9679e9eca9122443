import Synchronization

/// The attempts each endpoint has in flight in this process, at most
/// `limit` at once, so one slow or dead endpoint holds a bounded share of
/// the job runner's slots and never all of them. An attempt over the limit
/// is put off: its pause grows with how many of that endpoint's attempts
/// are waiting and how long its attempts take here (an average of the
/// recent ones), so a backlog behind a dead endpoint comes back at the rate
/// it can be sent instead of every instant.
final class EndpointLoad: Sendable {
    private struct Entry {
        var inFlight = 0
        /// An average of recent attempts' latency, in milliseconds.
        var latency: Double = 250
        /// The deliveries put off, with when they come back.
        var waiting: [Int64: Int64] = [:]
    }

    private let limit: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes a slot for `delivery`'s attempt to `endpoint`, or answers how
    /// long to put it off, in milliseconds; `unit` is a uniform draw in [0, 1).
    func enter(_ endpoint: String, delivery: Int64, now: Int64, unit: Double) -> Int64? {
        entries.withLock { entries in
            var entry = entries[endpoint] ?? Entry()
            // Waiters that never came back (run elsewhere, or done) are forgotten.
            entry.waiting = entry.waiting.filter { $0.value > now - 60_000 }
            guard entry.inFlight >= limit else {
                entry.waiting[delivery] = nil
                entry.inFlight += 1
                entries[endpoint] = entry
                return nil
            }
            let ahead = Double(entry.waiting.count + 1) / Double(limit)
            let pause = Int64(min(max(entry.latency * ahead, 50), 30_000) * (0.8 + 0.4 * unit))
            entry.waiting[delivery] = now + pause
            entries[endpoint] = entry
            return pause
        }
    }

    /// Gives the slot back, with how long the attempt took.
    func leave(_ endpoint: String, latencyMilliseconds: Int64) {
        entries.withLock { entries in
            guard var entry = entries[endpoint] else { return }
            entry.inFlight -= 1
            entry.latency = entry.latency * 0.8 + Double(max(1, latencyMilliseconds)) * 0.2
            entries[endpoint] = entry
        }
    }
}

import Capabilities
import Synchronization

/// What this process's attempts came to, since start-up: counters per
/// outcome and a histogram of their latency (`/metrics`), summed across
/// replicas by whoever scrapes them all.
public final class WebhookDeliveryCounters: Sendable {
    /// How an attempt ended: `succeeded` (2xx), `retried` (failed, another
    /// attempt is due), `failed` (failed, none is left), `gone` (410: the
    /// endpoint disabled); `deferred` counts the attempts put off because
    /// their endpoint had as many in flight here as it may.
    public enum Outcome: String, Sendable, CaseIterable {
        case succeeded, retried, failed, gone, deferred
    }

    /// Seconds, from a fast local receiver to the timeout.
    public static let latencyBounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private struct Counts {
        var outcomes: [Outcome: Int] = [:]
        var latency = Histogram(upperBounds: WebhookDeliveryCounters.latencyBounds)
    }

    private let counts = Mutex(Counts())

    public init() {}

    func record(_ outcome: Outcome) {
        counts.withLock { $0.outcomes[outcome, default: 0] += 1 }
    }

    func record(_ outcome: Outcome, latencyMilliseconds: Int64) {
        counts.withLock {
            $0.outcomes[outcome, default: 0] += 1
            $0.latency.record(Double(latencyMilliseconds) / 1000)
        }
    }

    /// Attempts per outcome, every outcome present.
    public var outcomes: [(Outcome, Int)] {
        let recorded = counts.withLock { $0.outcomes }
        return Outcome.allCases.map { ($0, recorded[$0] ?? 0) }
    }

    /// The latency of every attempt that reached the network.
    public var latency: Histogram { counts.withLock { $0.latency } }
}

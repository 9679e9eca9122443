import Synchronization

/// Per-client action counters: actions, errors, latency (RFC-001 section 16).
/// Latency goes into power-of-two nanosecond buckets, so recording is O(1)
/// and percentiles are read to within a factor of two.
public final class ClientMetrics: Sendable {
    static let bucketCount = 40

    private struct Counters {
        var actions: UInt64 = 0
        var errors: UInt64 = 0
        var totalNanoseconds: UInt64 = 0
        var maxNanoseconds: UInt64 = 0
        var buckets = [UInt64](repeating: 0, count: ClientMetrics.bucketCount)
    }

    public let client: String
    private let counters = Mutex(Counters())

    init(client: String) {
        self.client = client
    }

    func record(duration: Duration, failed: Bool) {
        let (seconds, attoseconds) = duration.components
        let nanos = UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
        let bucket = min(Self.bucketCount - 1, nanos == 0 ? 0 : 64 - nanos.leadingZeroBitCount)
        counters.withLock { counters in
            counters.actions += 1
            if failed { counters.errors += 1 }
            counters.totalNanoseconds &+= nanos
            counters.maxNanoseconds = max(counters.maxNanoseconds, nanos)
            counters.buckets[bucket] += 1
        }
    }

    public func snapshot() -> ClientMetricsSnapshot {
        counters.withLock { counters in
            ClientMetricsSnapshot(
                client: client,
                actions: counters.actions,
                errors: counters.errors,
                meanLatencyMicroseconds: counters.actions == 0
                    ? 0 : Double(counters.totalNanoseconds) / Double(counters.actions) / 1_000,
                maxLatencyMicroseconds: Double(counters.maxNanoseconds) / 1_000,
                p50LatencyMicroseconds: Self.percentile(0.50, counters.buckets, counters.actions),
                p99LatencyMicroseconds: Self.percentile(0.99, counters.buckets, counters.actions),
                totalLatencySeconds: Double(counters.totalNanoseconds) / 1e9,
                latencyBuckets: counters.buckets)
        }
    }

    /// Upper bound of the bucket holding the given quantile, in µs.
    private static func percentile(_ quantile: Double, _ buckets: [UInt64], _ total: UInt64) -> Double {
        guard total > 0 else { return 0 }
        let rank = UInt64((Double(total) * quantile).rounded(.up))
        var seen: UInt64 = 0
        for (index, count) in buckets.enumerated() {
            seen += count
            if seen >= max(rank, 1) {
                return Double(UInt64(1) << UInt64(index)) / 1_000
            }
        }
        return Double(UInt64(1) << UInt64(bucketCount - 1)) / 1_000
    }
}

/// A JSON-encodable reading of one client's ``ClientMetrics``.
public struct ClientMetricsSnapshot: Sendable, Codable, Equatable {
    public let client: String
    public let actions: UInt64
    public let errors: UInt64
    public let meanLatencyMicroseconds: Double
    public let maxLatencyMicroseconds: Double
    /// Upper bounds of power-of-two buckets.
    public let p50LatencyMicroseconds: Double
    public let p99LatencyMicroseconds: Double
    /// Sum of every action's latency.
    public let totalLatencySeconds: Double
    /// Actions per latency bucket: bucket `i` counts latencies below 2^i
    /// nanoseconds (and at least 2^(i-1)); the last bucket takes the rest.
    public let latencyBuckets: [UInt64]

    public var errorRate: Double { actions == 0 ? 0 : Double(errors) / Double(actions) }
}

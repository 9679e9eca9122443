import Synchronization

/// Per-client action counters: actions, errors, latency (RFC-001 section 16).
/// Latency goes into power-of-two nanosecond buckets, so recording is O(1)
/// and percentiles are read to within a factor of two. Every action of a
/// client from every event loop records here, so the counters are atomics,
/// not a lock: a reading may see an action in one counter and not yet in
/// another, never a torn value.
public final class ClientMetrics: Sendable {
    static let bucketCount = 40

    public let client: String
    private let errors = Atomic<UInt64>(0)
    private let totalNanoseconds = Atomic<UInt64>(0)
    private let maxNanoseconds = Atomic<UInt64>(0)
    /// Actions by latency bucket; their sum is the action count.
    private let buckets: InlineArray<40, Atomic<UInt64>> = InlineArray { _ in Atomic(0) }

    init(client: String) {
        self.client = client
    }

    @usableFromInline
    func record(duration: Duration, failed: Bool) {
        let (seconds, attoseconds) = duration.components
        let nanos = UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
        let bucket = min(Self.bucketCount - 1, nanos == 0 ? 0 : 64 - nanos.leadingZeroBitCount)
        if failed { errors.wrappingAdd(1, ordering: .relaxed) }
        totalNanoseconds.wrappingAdd(nanos, ordering: .relaxed)
        var seen = maxNanoseconds.load(ordering: .relaxed)
        while nanos > seen {
            let (exchanged, original) = maxNanoseconds.compareExchange(expected: seen, desired: nanos, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
        buckets[bucket].wrappingAdd(1, ordering: .relaxed)
    }

    public func snapshot() -> ClientMetricsSnapshot {
        let counts = (0..<Self.bucketCount).map { buckets[$0].load(ordering: .relaxed) }
        let actions = counts.reduce(0, &+)
        let total = totalNanoseconds.load(ordering: .relaxed)
        return ClientMetricsSnapshot(
            client: client,
            actions: actions,
            errors: errors.load(ordering: .relaxed),
            meanLatencyMicroseconds: actions == 0 ? 0 : Double(total) / Double(actions) / 1_000,
            maxLatencyMicroseconds: Double(maxNanoseconds.load(ordering: .relaxed)) / 1_000,
            p50LatencyMicroseconds: Self.percentile(0.50, counts, actions),
            p99LatencyMicroseconds: Self.percentile(0.99, counts, actions),
            totalLatencySeconds: Double(total) / 1e9,
            latencyBuckets: counts)
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
}

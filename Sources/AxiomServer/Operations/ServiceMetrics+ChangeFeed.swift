import Capabilities

extension ServiceMetrics {
    /// The follower's position against the outbox head and what it applied.
    static func writeChangeFeed(_ metrics: ChangeFeedMetrics, to text: inout PrometheusText) {
        text.family("axiom_change_feed_applied_sequence", "gauge", "The newest outbox sequence this process has applied.",
                    value: Int(metrics.appliedSequence))
        text.family("axiom_change_feed_head_sequence", "gauge", "The newest outbox sequence when last read.",
                    value: Int(metrics.headSequence))
        text.family("axiom_change_feed_lag", "gauge", "Outbox sequences committed but not yet applied here (head - applied).",
                    value: Int(metrics.lag))
        text.family("axiom_change_feed_applied_total", "counter", "Other processes' changes applied to this process's working sets.",
                    value: metrics.appliedChanges)
        text.family("axiom_change_feed_resynchronizations_total", "counter",
                    "Times this process fell behind the outbox's retention and dropped its caches.",
                    value: metrics.resynchronizations)
        text.family("axiom_change_feed_failed_reads_total", "counter", "Outbox reads that failed (retried on the next wake).",
                    value: metrics.failedReads)
        text.family("axiom_change_feed_barrier_waits_total", "counter",
                    "Read barriers (replica_coherence strict) that waited for the follower.",
                    value: metrics.barrierWaits)
        text.family("axiom_change_feed_head_reads_total", "counter", "Shared head reads made for read barriers.",
                    value: metrics.headReads)
    }
}

import Capabilities

extension ServiceMetrics {
    /// The follower's position against the outbox head and what it applied.
    static func writeChangeFeed(_ metrics: ChangeFeedMetrics, to text: inout PrometheusText) {
        text.family("axiom_change_feed_applied_sequence", "gauge", "The newest outbox sequence this process has applied.")
        text.sample("axiom_change_feed_applied_sequence", [], Int(metrics.appliedSequence))
        text.family("axiom_change_feed_head_sequence", "gauge", "The newest outbox sequence when last read.")
        text.sample("axiom_change_feed_head_sequence", [], Int(metrics.headSequence))
        text.family("axiom_change_feed_lag", "gauge", "Outbox sequences committed but not yet applied here (head - applied).")
        text.sample("axiom_change_feed_lag", [], Int(metrics.lag))
        text.family("axiom_change_feed_applied_total", "counter", "Other processes' changes applied to this process's working sets.")
        text.sample("axiom_change_feed_applied_total", [], metrics.appliedChanges)
        text.family("axiom_change_feed_resynchronizations_total", "counter",
                    "Times this process fell behind the outbox's retention and dropped its caches.")
        text.sample("axiom_change_feed_resynchronizations_total", [], metrics.resynchronizations)
        text.family("axiom_change_feed_failed_reads_total", "counter", "Outbox reads that failed (retried on the next wake).")
        text.sample("axiom_change_feed_failed_reads_total", [], metrics.failedReads)
        text.family("axiom_change_feed_barrier_waits_total", "counter",
                    "Read barriers (replica_coherence strict) that waited for the follower.")
        text.sample("axiom_change_feed_barrier_waits_total", [], metrics.barrierWaits)
        text.family("axiom_change_feed_head_reads_total", "counter", "Shared head reads made for read barriers.")
        text.sample("axiom_change_feed_head_reads_total", [], metrics.headReads)
    }
}

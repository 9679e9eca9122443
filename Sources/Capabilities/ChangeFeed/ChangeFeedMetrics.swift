/// The follower's position, for `/metrics`.
public struct ChangeFeedMetrics: Sendable, Equatable {
    /// Every outbox position up to this one is applied here (or skipped as its own).
    public var appliedSequence: Int64 = 0
    /// The newest position in the outbox when last read.
    public var headSequence: Int64 = 0
    /// Committed changes the last read could not take yet: above the
    /// horizon, behind a transaction still open somewhere in the cluster.
    public var heldBack: Int = 0
    /// Other processes' changes handed to subscribers.
    public var appliedChanges: Int = 0
    /// Times the follower fell behind retention and every cache was dropped.
    public var resynchronizations: Int = 0
    /// Outbox reads that failed (storage unavailable); retried on the next wake.
    public var failedReads: Int = 0
    /// Read barriers that had to wait for the follower.
    public var barrierWaits: Int = 0
    /// Shared head reads made for barriers (one serves every request in flight).
    public var headReads: Int = 0
    /// LISTEN connections made (1, plus one per reconnect), PostgreSQL notify mode only.
    public var listenerConnections: Int = 0

    /// Committed changes not yet applied here, as of the last read.
    public var lag: Int64 { Int64(heldBack) }
}

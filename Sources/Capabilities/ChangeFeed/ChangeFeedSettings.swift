/// How a process follows the outbox (`change_feed`, `change_feed_poll_interval`,
/// `change_feed_retention` in the server's configuration).
public struct ChangeFeedSettings: Sendable {
    public enum Wake: String, Sendable {
        /// `LISTEN` on a dedicated PostgreSQL connection; a slow poll
        /// (ten intervals) stays as a safety net. Falls back to `poll`
        /// on SQLite, which has no NOTIFY.
        case notify
        /// Read the outbox every `pollInterval`.
        case poll
    }

    public var wake: Wake
    public var pollInterval: Duration
    /// Rows older than this are pruned; a follower or an `/events` resume
    /// further behind starts over (`resynchronize`, a `reset` event).
    public var retentionSeconds: Int64
    /// Rows read per outbox query.
    public var batchSize: Int

    public init(wake: Wake = .notify, pollInterval: Duration = .milliseconds(100),
                retentionSeconds: Int64 = 86_400, batchSize: Int = 500) {
        self.wake = wake
        self.pollInterval = pollInterval
        self.retentionSeconds = retentionSeconds
        self.batchSize = batchSize
    }
}

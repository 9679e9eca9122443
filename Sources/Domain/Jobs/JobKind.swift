/// A kind of job, declared in the files of the feature that enqueues it
/// (its name is what the queue stores and what admins filter by).
public struct JobKind: Sendable, Hashable {
    /// Dotted, lower case: `order.mail`, `account.mail`, `payments.expire`.
    public let name: String
    /// Attempts before the job is `dead` with its last error.
    public let maxAttempts: Int
    /// A payload that holds a secret (a reset token): erased when the job
    /// finishes, whichever way, and never shown to admins.
    public let sensitive: Bool
    /// For periodic work, the pause between the end of one run and the
    /// start of the next, in milliseconds: the kind has one job (unique
    /// key `periodic`), run by one process at a time, queued again when it
    /// finishes (see docs/jobs.md). Nil for work enqueued by a change.
    public let intervalMilliseconds: Int64?

    public init(_ name: String, maxAttempts: Int = 20, sensitive: Bool = false) {
        self.name = name
        self.maxAttempts = max(1, maxAttempts)
        self.sensitive = sensitive
        intervalMilliseconds = nil
    }

    /// A periodic kind: run every `interval` on one replica at a time.
    public init(_ name: String, every interval: Duration, maxAttempts: Int = 20) {
        self.name = name
        self.maxAttempts = max(1, maxAttempts)
        sensitive = false
        let (seconds, attoseconds) = interval.components
        intervalMilliseconds = max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    /// The unique key of a periodic kind's one job.
    public static let periodicKey = "periodic"
}

/// A job as the queue holds it, for admins: its state, attempts and times
/// (milliseconds since 1970). `payload` is nil for a sensitive kind, and
/// once a sensitive job finished it is erased in storage too.
public struct JobRecord: Sendable, Hashable {
    public let id: Int64
    public let kind: String
    public let state: JobState
    public let payload: [UInt8]?
    public let uniqueKey: String?
    public let attempts: Int
    public let maxAttempts: Int
    public let sensitive: Bool
    /// When it is (or was last) due.
    public let runAt: Int64
    /// The process holding it and until when, while `running`.
    public let leaseOwner: String?
    public let leaseUntil: Int64?
    /// The error of its latest failed attempt.
    public let lastError: String?
    public let createdAt: Int64
    public let finishedAt: Int64?

    public init(id: Int64, kind: String, state: JobState, payload: [UInt8]?, uniqueKey: String?, attempts: Int,
                maxAttempts: Int, sensitive: Bool, runAt: Int64, leaseOwner: String?, leaseUntil: Int64?,
                lastError: String?, createdAt: Int64, finishedAt: Int64?) {
        self.id = id
        self.kind = kind
        self.state = state
        self.payload = payload
        self.uniqueKey = uniqueKey
        self.attempts = attempts
        self.maxAttempts = maxAttempts
        self.sensitive = sensitive
        self.runAt = runAt
        self.leaseOwner = leaseOwner
        self.leaseUntil = leaseUntil
        self.lastError = lastError
        self.createdAt = createdAt
        self.finishedAt = finishedAt
    }
}

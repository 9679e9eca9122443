/// A job to enqueue inside a write transaction (`StorageHandle.enqueue`):
/// committed with the change that causes it, or not at all.
public struct JobRequest: Sendable, Hashable {
    public let kind: JobKind
    /// A JSON object: what the job needs to find its work (ids, not copies).
    public let payload: [UInt8]
    /// At most one job of this kind with this key is queued or running at
    /// a time; enqueueing another while one is is a no-op.
    public let uniqueKey: String?
    /// When it is due, in milliseconds since 1970 (the caller's clock).
    public let runAt: Int64
    /// When it was asked for (its record's `created_at`); a job due later
    /// names both.
    public let enqueuedAt: Int64

    public init(kind: JobKind, payload: [UInt8], uniqueKey: String? = nil, runAt: Int64, enqueuedAt: Int64? = nil) {
        self.kind = kind
        self.payload = payload
        self.uniqueKey = uniqueKey
        self.runAt = runAt
        self.enqueuedAt = enqueuedAt ?? runAt
    }
}

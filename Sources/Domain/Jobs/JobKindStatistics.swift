/// The queue's contents for one kind, read in one query (the same answer
/// on every replica): jobs per state and how long the oldest due job has
/// waited past its `run_at`, in milliseconds (0 when none is due).
public struct JobKindStatistics: Sendable, Hashable {
    public let kind: String
    public var queued = 0, running = 0, succeeded = 0, dead = 0
    public var oldestDueAgeMilliseconds: Int64 = 0

    public init(kind: String) {
        self.kind = kind
    }
}

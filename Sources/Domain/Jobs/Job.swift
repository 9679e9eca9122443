/// A job as its work gets it: claimed by this process under a lease, on
/// attempt `attempt` of `maxAttempts`.
public struct Job: Sendable, Hashable {
    public let id: Int64
    public let kind: String
    /// The JSON object it was enqueued with.
    public let payload: [UInt8]
    public let uniqueKey: String?
    /// 1 on the first attempt.
    public let attempt: Int
    public let maxAttempts: Int
    /// When it was enqueued, in milliseconds since 1970.
    public let createdAt: Int64

    public init(id: Int64, kind: String, payload: [UInt8], uniqueKey: String?, attempt: Int, maxAttempts: Int,
                createdAt: Int64) {
        self.id = id
        self.kind = kind
        self.payload = payload
        self.uniqueKey = uniqueKey
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.createdAt = createdAt
    }
}

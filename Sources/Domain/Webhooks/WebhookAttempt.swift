/// One attempt of a delivery: when, the status code of the answer (nil
/// when none came: a timeout, a refused or reset connection, TLS), how
/// long it took, and what went wrong (nil on a 2xx).
public struct WebhookAttempt: Hashable, Sendable {
    public let at: Timestamp
    public let statusCode: Int?
    public let latencyMilliseconds: Int64
    public let error: String?

    public init(at: Timestamp, statusCode: Int?, latencyMilliseconds: Int64, error: String?) {
        self.at = at
        self.statusCode = statusCode
        self.latencyMilliseconds = latencyMilliseconds
        self.error = error
    }
}

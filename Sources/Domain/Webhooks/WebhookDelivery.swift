/// One event's delivery to one endpoint (one per pair, made when the event
/// fans out or is replayed): `pending` while attempts remain, until one
/// succeeds (`succeeded`), the schedule runs out or the endpoint is disabled
/// (`failed`), or the endpoint is deleted (`cancelled`). The attempts are
/// its log (`WebhookAttempt`).
public struct WebhookDelivery: Hashable, Sendable {
    public let id: Int64
    public let endpointID: String
    public let eventID: String
    /// The event's type as stored (a name a later release may add).
    public let eventType: String
    public let status: WebhookDeliveryStatus
    public let attempts: Int
    /// When the next attempt is due, while pending.
    public let nextAttemptAt: Timestamp?
    /// The status code of the latest attempt that got an answer.
    public let lastStatusCode: Int?
    /// What went wrong in the latest attempt that failed.
    public let lastError: String?
    public let createdAt: Timestamp
    public let updatedAt: Timestamp

    public init(id: Int64, endpointID: String, eventID: String, eventType: String, status: WebhookDeliveryStatus,
                attempts: Int, nextAttemptAt: Timestamp?, lastStatusCode: Int?, lastError: String?,
                createdAt: Timestamp, updatedAt: Timestamp) {
        self.id = id
        self.endpointID = endpointID
        self.eventID = eventID
        self.eventType = eventType
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastStatusCode = lastStatusCode
        self.lastError = lastError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// An event as it was fanned out to the endpoints: its type, when the
/// change happened and when the event was published, and the body every
/// endpoint is sent (the same bytes on every attempt and every replay).
public struct WebhookEventRecord: Hashable, Sendable {
    /// The `webhook-id` of every delivery of it (`msg_…`).
    public let id: String
    /// As stored (a name a later release may add).
    public let type: String
    public let occurredAt: Timestamp
    public let createdAt: Timestamp
    /// A JSON object: `{"type", "timestamp", "data"}`.
    public let body: [UInt8]

    public init(id: String, type: String, occurredAt: Timestamp, createdAt: Timestamp, body: [UInt8]) {
        self.id = id
        self.type = type
        self.occurredAt = occurredAt
        self.createdAt = createdAt
        self.body = body
    }
}

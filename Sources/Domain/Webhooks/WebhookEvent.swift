import FoundationEssentials

/// An event for the merchant's systems, enqueued as a `webhook.event` job
/// in the transaction of the change it reports (a client made with
/// `webhooks: true`), so it exists exactly when the change does. The job
/// names the resource, not a copy of it: its work reads the resource,
/// fixes the body every endpoint is sent, and fans it out to the
/// subscribed endpoints (one `webhook.delivery` job each).
///
/// `id` is the Standard Webhooks `webhook-id`: the same for every endpoint
/// and every retry, so a receiver recognises a repeat by it.
public struct WebhookEvent: Codable, Sendable, Hashable {
    public static let kind = JobKind("webhook.event")

    public let id: String
    public let type: WebhookEventType
    /// When the change happened, in milliseconds since 1970.
    public let occurredAt: Int64
    public let subject: WebhookSubject
    /// What moved, for `order.refunded`.
    public let amount: Money?
    /// The product's stock alert level, for `product.stock_low`.
    public let threshold: Int?

    enum CodingKeys: String, CodingKey {
        case id, type, subject, amount, threshold
        case occurredAt = "occurred_at"
    }

    public init(type: WebhookEventType, subject: WebhookSubject, at occurredAt: Int64, amount: Money? = nil,
                threshold: Int? = nil) {
        id = "msg_" + String(TimeOrderedUUID.make(millisecondsSince1970: occurredAt).uuidString.lowercased()
            .filter { $0 != "-" })
        self.type = type
        self.occurredAt = occurredAt
        self.subject = subject
        self.amount = amount
        self.threshold = threshold
    }

    /// The job that carries it, due at once.
    public func request() throws -> JobRequest {
        JobRequest(kind: Self.kind, payload: Array(try JSONEncoder().encode(self)), uniqueKey: id, runAt: occurredAt)
    }

    /// The payload of a job of this kind.
    public init(job: Job) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(job.payload))
    }
}

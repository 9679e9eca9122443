import Domain
import FoundationEssentials

/// The job that attempts one delivery (`webhook.delivery`), enqueued with
/// the delivery. Every attempt's outcome is the delivery's own record; the
/// job only waits for the next one (`WebhookRetry`, a snooze that counts
/// no attempt), so its attempts bound only what fails outside a delivery
/// (storage unavailable while recording one). Unique per delivery: one job
/// holds it at a time.
public struct WebhookDeliveryJob: Codable, Sendable, Hashable {
    public static let kind = JobKind("webhook.delivery", maxAttempts: 100)

    public let deliveryID: Int64

    enum CodingKeys: String, CodingKey {
        case deliveryID = "delivery_id"
    }

    public init(job: Job) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(job.payload))
    }

    init(deliveryID: Int64) {
        self.deliveryID = deliveryID
    }

    func request(at runAt: Int64) throws -> JobRequest {
        JobRequest(kind: Self.kind, payload: Array(try JSONEncoder().encode(self)), uniqueKey: String(deliveryID),
                   runAt: runAt)
    }
}

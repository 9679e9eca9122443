import Domain
import FoundationEssentials

/// The admins' notice that an endpoint was disabled by the service (it
/// answered 410, or it kept failing for `webhooks_disable_after`),
/// enqueued in the transaction that disables it when mail is on
/// (`WebhookClient(mails:)`).
public struct WebhookEndpointNotice: Codable, Sendable, Hashable {
    public static let kind = JobKind("webhook.notice")

    public let endpointID: String
    public let reason: WebhookDisabledReason

    enum CodingKeys: String, CodingKey {
        case endpointID = "endpoint_id"
        case reason
    }

    public init(job: Job) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(job.payload))
    }

    init(endpointID: String, reason: WebhookDisabledReason) {
        self.endpointID = endpointID
        self.reason = reason
    }

    func request(at now: Int64) throws -> JobRequest {
        JobRequest(kind: Self.kind, payload: Array(try JSONEncoder().encode(self)), runAt: now)
    }
}

import Axiom
import Domain
import WebhookClient

/// The work of a `webhook.delivery` job: one attempt of its delivery
/// (`WebhookClient.attempt`). When another is due, the job waits for it by
/// throwing the `WebhookRetry` the attempt answers (a snooze: the queue
/// holds the job until then, counting no attempt of its own).
public struct WebhookDeliveryWork: JobWork {
    public static let kinds = [WebhookDeliveryJob.kind]

    private let webhooks: ClientHandle<WebhookClient>

    public init(_ creation: ContextCreation) throws {
        webhooks = try creation.client(WebhookClient.self)
    }

    public func run(_ job: Job) async throws {
        let delivery = try JobPayload.decode(job) { try WebhookDeliveryJob(job: $0) }
        if let retry = try await webhooks.call({ try await $0.attempt(delivery.deliveryID) }) { throw retry }
    }
}

import Domain
import WebhookClient

/// The webhooks for admins: endpoints (made with a secret shown once,
/// listed, read, changed, deleted, their secret rotated), each one's
/// delivery log, an admin's retry of one delivery, a replay of every
/// event since a time, and the events.
extension AdminContext {
    public func createWebhook(_ draft: WebhookEndpointDraft) async throws -> WebhookEndpointCreated {
        try await webhooks.call { try await $0.create(draft) }
    }

    public func webhooks(limit: Int, after cursor: String?) async throws -> Page<WebhookEndpoint> {
        try await webhooks.call { try await $0.endpoints(limit: limit, after: cursor) }
    }

    /// `webhook_endpoint_not_found`.
    public func webhook(_ id: String) async throws -> WebhookEndpoint {
        try await webhooks.call { try await $0.endpoint(id) }
    }

    public func updateWebhook(_ id: String, _ patch: WebhookEndpointPatch) async throws -> WebhookEndpoint {
        try await webhooks.call { try await $0.update(id, patch) }
    }

    public func deleteWebhook(_ id: String) async throws {
        try await webhooks.call { try await $0.delete(id) }
    }

    /// A new secret, the previous one signing beside it for `overlapSeconds`.
    public func rotateWebhookSecret(_ id: String, overlapSeconds: Int64?) async throws -> WebhookSecret {
        try await webhooks.call { try await $0.rotateSecret(id, overlapSeconds: overlapSeconds ?? 86_400) }
    }

    public func webhookDeliveries(of endpoint: String, status: WebhookDeliveryStatus?, limit: Int,
                                  after cursor: String?) async throws -> Page<WebhookDelivery> {
        try await webhooks.call { try await $0.deliveries(of: endpoint, status: status, limit: limit, after: cursor) }
    }

    /// One delivery with its attempts (`webhook_delivery_not_found`).
    public func webhookDelivery(_ id: Int64) async throws -> WebhookDeliveryLog {
        try await webhooks.call { try await $0.delivery(id) }
    }

    /// Pending again and attempted now (409 `webhook_endpoint_disabled`).
    public func retryWebhookDelivery(_ id: Int64) async throws -> WebhookDelivery {
        try await webhooks.call { try await $0.retry(id) }
    }

    /// One batch of a replay of every event since `since` to `endpoint`.
    public func replayWebhook(_ endpoint: String, since: Timestamp, after cursor: String?) async throws -> WebhookReplay {
        try await webhooks.call { try await $0.replay(endpoint, since: since, after: cursor) }
    }

    public func webhookEvents(type: WebhookEventType?, since: Timestamp?, limit: Int,
                              after cursor: String?) async throws -> Page<WebhookEventRecord> {
        try await webhooks.call { try await $0.events(type: type, since: since, limit: limit, after: cursor) }
    }
}

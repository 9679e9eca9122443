import Capabilities
import Domain

/// What an attempt reads before it sends, in one read: the delivery, its
/// endpoint (nil once deleted) with the secrets that sign now, and its
/// event (nil once pruned).
struct WebhookAttemptTarget: Sendable {
    let delivery: WebhookDelivery
    let endpoint: WebhookEndpoint?
    let secrets: [String]
    let event: WebhookEventRecord?

    static func read(_ handle: any StorageHandle, delivery id: Int64, now: Int64) throws -> WebhookAttemptTarget? {
        guard let delivery = try WebhookDeliveryStore.find(handle, id: id) else { return nil }
        let endpoint = try WebhookEndpointStore.find(handle, id: delivery.endpointID)
        return WebhookAttemptTarget(
            delivery: delivery, endpoint: endpoint,
            secrets: endpoint == nil ? [] : try WebhookEndpointStore.secrets(handle, id: delivery.endpointID, now: now),
            event: try WebhookEventStore.find(handle, id: delivery.eventID))
    }
}

/// A delivery with its attempts, oldest first (`GET /admin/webhook-deliveries/{id}`).
public struct WebhookDeliveryLog: Hashable, Sendable {
    public let delivery: WebhookDelivery
    public let attempts: [WebhookAttempt]

    public init(delivery: WebhookDelivery, attempts: [WebhookAttempt]) {
        self.delivery = delivery
        self.attempts = attempts
    }
}

/// Where a delivery is: see `WebhookDelivery`.
public enum WebhookDeliveryStatus: String, Codable, Sendable, Hashable, CaseIterable {
    case pending
    case succeeded
    case failed
    case cancelled
}

/// Whether an endpoint is sent events. A disabled one is sent nothing new
/// and its pending deliveries fail when their turn comes; enabling it
/// again starts from the next event (a replay sends what it missed).
public enum WebhookEndpointStatus: String, Codable, Sendable, Hashable, CaseIterable {
    case enabled
    case disabled
}

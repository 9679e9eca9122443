/// Why an endpoint is disabled: it answered 410 Gone (the receiver asked
/// to be sent nothing more), it failed every attempt for longer than
/// `webhooks_disable_after`, or an admin disabled it.
public enum WebhookDisabledReason: String, Codable, Sendable, Hashable, CaseIterable {
    case gone
    case failing
    case admin
}

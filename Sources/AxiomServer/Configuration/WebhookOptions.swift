/// The webhook settings (`webhook_…`).
struct WebhookOptions: Sendable {
    /// Whether changes enqueue their webhook events: off, a shop that never
    /// subscribes an endpoint saves one job per change.
    var events = true
}

extension ServerOptions {
    /// The webhook settings, after the mail's in `--help` and `--print-config`.
    static let webhookSettings: [Setting] = [
        .boolean("webhook_events",
                 help: "each change of an order, payment, product or customer enqueues its webhook event; off: changes enqueue no webhook events (a shop that never subscribes an endpoint saves one job per change)",
                 \.webhooks.events),
    ]
}

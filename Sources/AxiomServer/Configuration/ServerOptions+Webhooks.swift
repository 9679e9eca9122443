extension ServerOptions {
    /// The outbound webhooks' settings, after the mail's in `--help` and `--print-config`.
    static let webhookSettings: [Setting] = [
        .boolean("webhooks_allow_http", help: "endpoints may be http:// (tests, a receiver on this host); else https:// only",
                 \.webhooks.allowHTTP),
        .boolean("webhooks_allow_private",
                 help: "endpoints may be or resolve to loopback, private, link-local, unique-local or metadata addresses (tests)",
                 \.webhooks.allowPrivate),
        .optionalText("webhooks_ca_file", help: "PEM CA certificates trusted for endpoints (null: the system's store)",
                      \.webhooks.caFile),
        .seconds("webhooks_timeout", max: 600, help: "seconds one delivery attempt may take in all, connecting included",
                 \.webhooks.timeoutSeconds),
        .seconds("webhooks_connect_timeout", max: 600,
                 help: "seconds resolving, connecting and the TLS handshake of a delivery may take",
                 \.webhooks.connectTimeoutSeconds),
        .integer("webhooks_endpoint_concurrency", in: 1...1_000,
                 help: "attempts one endpoint may have in flight in this process (at most jobs_concurrency - 1)",
                 \.webhooks.endpointConcurrency),
        .list("webhooks_retry_schedule", accepted: "comma-separated whole seconds 0 to 604800, one per attempt",
              help: "the wait before each attempt of a delivery, the first after the event; ±20 % jitter",
              check: { WebhookOptions.schedule($0) != nil }, \.webhooks.retrySchedule),
        .integer("webhooks_disable_after", in: 1...31_536_000,
                 help: "seconds an endpoint may fail every attempt before it is disabled (the admins told)",
                 \.webhooks.disableAfterSeconds),
        .integer("webhooks_retention", in: 60...315_360_000,
                 help: "seconds webhook events, finished deliveries and their attempts are kept before the hourly prune",
                 \.webhooks.retentionSeconds),
    ]
}

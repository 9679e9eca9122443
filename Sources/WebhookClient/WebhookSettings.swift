import Domain

/// How the webhooks are sent (`webhooks_*` settings): which URLs an
/// endpoint may have, how many attempts one endpoint may have in flight in
/// this process, the retry schedule, when a failing endpoint is disabled,
/// and how long events, deliveries and attempts are kept. Timeouts, the CA
/// file and the address policy are the HTTP capability's.
public struct WebhookSettings: Sendable, Hashable {
    /// `http://` endpoints (tests, a receiver on the same host); else `https://` only.
    public let allowsHTTP: Bool
    public let endpointConcurrency: Int
    public let schedule: WebhookRetrySchedule
    /// An endpoint whose every attempt failed for this long is disabled (`failing`).
    public let disableAfterMilliseconds: Int64
    public let retentionMilliseconds: Int64
    /// The `user-agent` of every delivery.
    public let userAgent: String

    public init(allowsHTTP: Bool = false, endpointConcurrency: Int = 4, schedule: WebhookRetrySchedule = .standard,
                disableAfterSeconds: Int64 = 432_000, retentionSeconds: Int64 = 2_592_000,
                userAgent: String = "Axiom-Webhooks/1") {
        self.allowsHTTP = allowsHTTP
        self.endpointConcurrency = max(1, endpointConcurrency)
        self.schedule = schedule
        disableAfterMilliseconds = max(0, disableAfterSeconds) * 1000
        retentionMilliseconds = max(0, retentionSeconds) * 1000
        self.userAgent = userAgent
    }
}

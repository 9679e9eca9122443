import Capabilities
import Domain
import WebhookClient

/// The webhook settings: whether changes enqueue their events
/// (`webhook_events`), and how they are sent (`webhooks_…`): which
/// endpoint URLs are taken, the HTTPS client's timeouts and trust, the
/// attempts one endpoint may have in flight, the retry schedule, when a
/// failing endpoint is disabled and how long the log is kept.
struct WebhookOptions: Sendable {
    /// Whether changes enqueue their webhook events: off, a shop that never
    /// subscribes an endpoint saves one job per change.
    var events = true
    var allowHTTP = false
    var allowPrivate = false
    var caFile: String?
    var timeoutSeconds = 15.0
    var connectTimeoutSeconds = 5.0
    var endpointConcurrency = 4
    /// Comma-separated seconds, one per attempt (checked before it is set).
    var retrySchedule = "0,5,300,1800,7200,18000,36000,50400,72000,86400"
    var disableAfterSeconds = 432_000
    var retentionSeconds = 2_592_000

    /// The HTTPS capability's settings: a private address is admitted only
    /// with `webhooks_allow_private`, at creation and at every connect.
    var http: OutboundHTTPSettings {
        OutboundHTTPSettings(connectTimeout: .milliseconds(Int(connectTimeoutSeconds * 1000)),
                             timeout: .milliseconds(Int(timeoutSeconds * 1000)), caFile: caFile,
                             addressPolicy: AddressPolicy(allowsPrivate: allowPrivate))
    }

    /// The client's settings. One endpoint's attempts in flight are at most
    /// `jobs_concurrency - 1`, so a slow or dead endpoint always leaves the
    /// runner a slot for the rest.
    func client(jobsConcurrency: Int) -> WebhookSettings {
        WebhookSettings(allowsHTTP: allowHTTP,
                        endpointConcurrency: min(endpointConcurrency, max(1, jobsConcurrency - 1)),
                        schedule: Self.schedule(retrySchedule) ?? .standard,
                        disableAfterSeconds: Int64(disableAfterSeconds), retentionSeconds: Int64(retentionSeconds))
    }

    /// `0,0.5,300`: seconds, one per attempt, each at most a week.
    static func schedule(_ text: String) -> WebhookRetrySchedule? {
        let steps = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.filter { $0 != " " }) }
        guard steps.count <= 100, steps.allSatisfy({ $0 != nil }) else { return nil }
        return WebhookRetrySchedule(seconds: steps.compactMap { $0 })
    }
}

import Capabilities
import WebhookClient

extension ServiceMetrics {
    /// What this process's webhook attempts came to, as counters (summed
    /// across replicas), and their latency. The deliveries waiting are the
    /// `webhook.delivery` jobs in `axiom_jobs`.
    func writeWebhooks(to text: inout PrometheusText) {
        text.family("axiom_webhook_attempts_total", "counter",
                    "Webhook delivery attempts this process made, by outcome: succeeded (2xx), retried (failed, another "
                        + "is due), failed (failed, none is left), gone (410: endpoint disabled), deferred (its endpoint "
                        + "had webhooks_endpoint_concurrency attempts in flight here).")
        for (outcome, count) in webhooks.outcomes {
            text.sample("axiom_webhook_attempts_total", [("outcome", outcome.rawValue)], count)
        }
        text.family("axiom_webhook_attempt_duration_seconds", "histogram",
                    "Time from sending a webhook delivery to its answer or failure (deferred attempts not included).")
        text.histogram("axiom_webhook_attempt_duration_seconds", webhooks.latency)
    }
}

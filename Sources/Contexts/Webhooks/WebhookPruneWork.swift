import Axiom
import Domain
import WebhookClient

/// Deletes webhook events, finished deliveries and their attempts older
/// than `webhooks_retention`, hourly, on one replica at a time.
public struct WebhookPruneWork: JobWork {
    public static let prune = JobKind("webhooks.prune", every: .seconds(3600))
    public static let kinds = [prune]

    private let webhooks: ClientHandle<WebhookClient>

    public init(_ creation: ContextCreation) throws {
        webhooks = try creation.client(WebhookClient.self)
    }

    public func run(_ job: Job) async throws {
        let removed = try await webhooks.call { try await $0.prune() }
        if removed.deliveries + removed.events > 0 {
            JobEvents.record(JobEvent("webhooks_pruned", numbers: [("deliveries", removed.deliveries),
                                                                   ("events", removed.events)]))
        }
    }
}

import Capabilities
import Domain

extension WebhookClient {
    static let pruneBatch = 1000

    /// Deletes what is older than `webhooks_retention`: finished deliveries
    /// with their attempts (by their last change) and events (by when they
    /// were published), a bounded batch per write; answers how many rows of
    /// each went.
    public func prune() async throws -> (deliveries: Int, events: Int) {
        let before = now - settings.retentionMilliseconds
        var deliveries = 0, events = 0
        while true {
            let batch = try await storage.durableWrite {
                try WebhookDeliveryStore.prune($0, before: before, limit: Self.pruneBatch)
            }
            deliveries += batch
            if batch < Self.pruneBatch { break }
        }
        while true {
            let batch = try await storage.durableWrite {
                try WebhookEventStore.prune($0, before: before, limit: Self.pruneBatch)
            }
            events += batch
            if batch < Self.pruneBatch { break }
        }
        return (deliveries, events)
    }
}

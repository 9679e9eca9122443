import Capabilities
import Domain

extension WebhookClient {
    /// Fans `event` out, in one write: the event is stored with `body` (the
    /// bytes every endpoint is sent, on every attempt and every replay),
    /// and each enabled endpoint that receives its type gets a pending
    /// delivery and the job that attempts it, due per the schedule's first
    /// step. An event published again (its job ran twice) changes nothing.
    /// Answers how many deliveries were made.
    @discardableResult
    public func publish(_ event: WebhookEvent, body: [UInt8]) async throws -> Int {
        let now = self.now
        let first = settings.schedule.delay(afterAttempts: 0, unit: Double.random(in: 0..<1)) ?? 0
        return try await storage.durableWrite { handle in
            guard try WebhookEventStore.insert(handle, event, body: body, now: now) else { return 0 }
            var made = 0
            for endpoint in try WebhookEndpointStore.enabled(handle) where endpoint.receives(event.type) {
                if try WebhookDeliveryStore.make(handle, endpoint: endpoint.id, eventID: event.id, type: event.type.rawValue,
                                                 due: now + first, now: now) != nil {
                    made += 1
                }
            }
            return made
        }
    }
}

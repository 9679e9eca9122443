import Capabilities
import Domain

/// The delivery log for admins: an endpoint's deliveries, one delivery
/// with its attempts, an admin's retry of one, a replay of every event
/// since a time, and the events themselves.
extension WebhookClient {
    /// `endpoint`'s deliveries (of `status`, any when nil), newest first,
    /// `limit` after `cursor` (the previous page's last id).
    public nonisolated func deliveries(of endpoint: String, status: WebhookDeliveryStatus?, limit: Int,
                                       after cursor: String?) async throws -> Page<WebhookDelivery> {
        let after = try Self.deliveryCursor(cursor)
        let count = max(0, limit)
        let read = try await storage.storedRead { handle -> [WebhookDelivery]? in
            guard try WebhookEndpointStore.find(handle, id: endpoint) != nil else { return nil }
            return try WebhookDeliveryStore.list(handle, endpoint: endpoint, status: status, after: after, limit: count + 1)
        }
        guard let read else { throw WebhookError.endpointNotFound(id: endpoint) }
        return Page(readAhead: read, limit: count) { String($0.id) }
    }

    /// One delivery with its latest attempts, oldest first.
    public nonisolated func delivery(_ id: Int64) async throws -> WebhookDeliveryLog {
        let shown = Self.attemptsShown
        let found = try await storage.storedRead { handle -> WebhookDeliveryLog? in
            guard let delivery = try WebhookDeliveryStore.find(handle, id: id) else { return nil }
            return WebhookDeliveryLog(delivery: delivery,
                                      attempts: try WebhookDeliveryStore.attempts(handle, of: id, limit: shown))
        }
        guard let found else { throw WebhookError.deliveryNotFound(id: String(id)) }
        return found
    }

    /// An admin's retry: the delivery pending again and attempted now,
    /// whatever its status (a succeeded one is sent again); its attempts
    /// are kept, so one past its schedule gets this one attempt. Refused
    /// while its endpoint is disabled, and once it is deleted.
    public func retry(_ id: Int64) async throws -> WebhookDelivery {
        let now = self.now
        return try await storage.durableWrite { handle in
            guard let delivery = try WebhookDeliveryStore.find(handle, id: id, locking: true) else {
                throw WebhookError.deliveryNotFound(id: String(id))
            }
            guard let endpoint = try WebhookEndpointStore.find(handle, id: delivery.endpointID) else {
                throw WebhookError.endpointNotFound(id: delivery.endpointID)
            }
            guard endpoint.isEnabled else { throw WebhookError.endpointDisabled(id: endpoint.id) }
            try WebhookDeliveryStore.retry(handle, id: id, now: now)
            return try WebhookDeliveryStore.find(handle, id: id) ?? delivery
        }
    }

    /// Events replayed per call: a replay of a long history is several
    /// calls, each one write of a bounded size.
    public static let replayBatch = 500

    /// Every event since `since` that `endpoint` receives (after `cursor`,
    /// a previous call's `next_cursor`), oldest first, up to
    /// `replayBatch`: each one's delivery made, or reset to pending from its
    /// first attempt, and attempted now. Refused while the endpoint is
    /// disabled.
    public func replay(_ endpoint: String, since: Timestamp, after cursor: String?) async throws -> WebhookReplay {
        var position: WebhookEventPosition?
        if let cursor {
            guard let parsed = WebhookEventPosition(cursor: cursor) else { throw Self.cursorRefused }
            position = parsed
        }
        let (now, batch, from) = (self.now, Self.replayBatch, position)
        return try await storage.durableWrite { handle in
            guard let found = try WebhookEndpointStore.find(handle, id: endpoint, locking: true) else {
                throw WebhookError.endpointNotFound(id: endpoint)
            }
            guard found.isEnabled else { throw WebhookError.endpointDisabled(id: endpoint) }
            let events = try WebhookEventStore.replayed(handle, types: found.eventTypes, since: since.millisecondsSince1970,
                                                        after: from, limit: batch + 1)
            let replayed = events.prefix(batch)
            for event in replayed {
                try WebhookDeliveryStore.remake(handle, endpoint: endpoint, eventID: event.id, type: event.type, now: now)
            }
            return WebhookReplay(enqueued: replayed.count,
                                 nextCursor: events.count > batch ? replayed.last?.cursor : nil)
        }
    }

    /// The events (of `type`, any when nil) that happened at or after
    /// `since`, newest first, `limit` after `cursor`.
    public nonisolated func events(type: WebhookEventType?, since: Timestamp?, limit: Int,
                                   after cursor: String?) async throws -> Page<WebhookEventRecord> {
        var position: WebhookEventPosition?
        if let cursor {
            guard let parsed = WebhookEventPosition(cursor: cursor) else { throw Self.cursorRefused }
            position = parsed
        }
        let (count, from) = (max(0, limit), position)
        let read = try await storage.storedRead {
            try WebhookEventStore.list($0, type: type?.rawValue, since: since?.millisecondsSince1970, before: from,
                                       limit: count + 1)
        }
        return Page(readAhead: read, limit: count) { WebhookEventPosition(occurredAt: $0.occurredAt.millisecondsSince1970,
                                                                          id: $0.id).cursor }
    }

    static var cursorRefused: ValidationError {
        ValidationError([FieldError(field: "cursor", code: .invalidFormat, message: "cursor is not one this service issued")])
    }

    static func deliveryCursor(_ cursor: String?) throws -> Int64? {
        guard let cursor else { return nil }
        guard let id = Int64(cursor), id > 0 else { throw cursorRefused }
        return id
    }
}

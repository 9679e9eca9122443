import Capabilities
import Domain

/// The deliveries' and attempts' rows. A delivery is made pending with the
/// job that attempts it, in one transaction; each attempt is a row of its
/// log written with the delivery's next state.
enum WebhookDeliveryStore {
    static let columns = """
        id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, last_status_code, last_error,
        created_at, updated_at
        """

    static func find(_ handle: any StorageHandle, id: Int64, locking: Bool = false) throws -> WebhookDelivery? {
        try handle.queryOne("SELECT \(columns) FROM webhook_deliveries WHERE id = ?\(locking ? handle.lockingRead : "")",
                            arguments: [.integer(id)]).map(delivery)
    }

    /// A pending delivery of `event` to `endpoint`, its first attempt due at
    /// `due`, with its job; nil when the endpoint has one of the event
    /// already.
    static func make(_ handle: any StorageHandle, endpoint: String, eventID: String, type: String, due: Int64,
                     now: Int64) throws -> Int64? {
        guard let row = try handle.queryOne("""
            INSERT INTO webhook_deliveries(endpoint_id, event_id, event_type, status, attempts, next_attempt_at,
                                           created_at, updated_at)
            VALUES(?, ?, ?, 'pending', 0, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id
            """, arguments: [.text(endpoint), .text(eventID), .text(type), .integer(due), .integer(now), .integer(now)])
        else { return nil }
        let id: Int64 = try row.get(0)
        try handle.enqueue(try WebhookDeliveryJob(deliveryID: id).request(at: due))
        return id
    }

    /// A replay's delivery: made, or an existing one pending again from its
    /// first attempt, due at `now`, with its job brought forward or made.
    static func remake(_ handle: any StorageHandle, endpoint: String, eventID: String, type: String,
                       now: Int64) throws {
        guard let row = try handle.queryOne("""
            INSERT INTO webhook_deliveries(endpoint_id, event_id, event_type, status, attempts, next_attempt_at,
                                           created_at, updated_at)
            VALUES(?, ?, ?, 'pending', 0, ?, ?, ?)
            ON CONFLICT (endpoint_id, event_id) DO UPDATE SET status = 'pending', attempts = 0,
                next_attempt_at = excluded.next_attempt_at, last_error = NULL, updated_at = excluded.updated_at
            RETURNING id
            """, arguments: [.text(endpoint), .text(eventID), .text(type), .integer(now), .integer(now), .integer(now)])
        else { return }
        try handle.enqueueOrAdvance(try WebhookDeliveryJob(deliveryID: try row.get(0)).request(at: now))
    }

    /// An admin's retry: pending again, due at `now` (its attempts kept, so
    /// a delivery past its schedule has this one attempt), its job brought
    /// forward or made.
    static func retry(_ handle: any StorageHandle, id: Int64, now: Int64) throws {
        try handle.execute("""
            UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, updated_at = ? WHERE id = ?
            """, arguments: [.integer(now), .integer(now), .integer(id)])
        try handle.enqueueOrAdvance(try WebhookDeliveryJob(deliveryID: id).request(at: now))
    }

    /// Newest first: `endpoint`'s deliveries (of `status`, any when nil),
    /// after the delivery `after`.
    static func list(_ handle: any StorageHandle, endpoint: String, status: WebhookDeliveryStatus?, after: Int64?,
                     limit: Int) throws -> [WebhookDelivery] {
        var conditions = ["endpoint_id = ?"]
        var arguments: [StorageValue] = [.text(endpoint)]
        if let status {
            conditions.append("status = ?")
            arguments.append(.text(status.rawValue))
        }
        if let after {
            conditions.append("id < ?")
            arguments.append(.integer(after))
        }
        return try handle.query("""
            SELECT \(columns) FROM webhook_deliveries WHERE \(conditions.joined(separator: " AND ")) ORDER BY id DESC LIMIT ?
            """, arguments: arguments + [.integer(Int64(limit))]).map(delivery)
    }

    /// The latest `limit` attempts, oldest first.
    static func attempts(_ handle: any StorageHandle, of delivery: Int64, limit: Int) throws -> [WebhookAttempt] {
        try handle.query("""
            SELECT attempted_at, status_code, latency_ms, error FROM webhook_attempts WHERE delivery_id = ?
            ORDER BY id DESC LIMIT ?
            """, arguments: [.integer(delivery), .integer(Int64(limit))]).reversed().map { row in
            WebhookAttempt(at: Timestamp(millisecondsSince1970: try row.get(0)), statusCode: try row.get(1, as: Int?.self),
                           latencyMilliseconds: try row.get(2), error: try row.get(3))
        }
    }

    static func addAttempt(_ handle: any StorageHandle, delivery: Int64, _ attempt: WebhookAttempt) throws {
        try handle.enqueue("""
            INSERT INTO webhook_attempts(delivery_id, attempted_at, status_code, latency_ms, error) VALUES(?, ?, ?, ?, ?)
            """, arguments: [.integer(delivery), .integer(attempt.at.millisecondsSince1970),
                             attempt.statusCode.map { .integer(Int64($0)) } ?? .null,
                             .integer(attempt.latencyMilliseconds), attempt.error.map(StorageValue.text) ?? .null])
    }

    /// The delivery after its attempt `made` (1 for the first): `status`,
    /// the next attempt due at `next` while pending. Written only while
    /// the delivery is still as the attempt found it (pending, `made - 1`
    /// attempts before): one an admin retried or a replay reset meanwhile
    /// keeps that. Answers whether it was written.
    static func advance(_ handle: any StorageHandle, id: Int64, made: Int, status: WebhookDeliveryStatus, next: Int64?,
                        statusCode: Int?, error: String?, now: Int64) throws -> Bool {
        try handle.execute("""
            UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?,
                last_status_code = COALESCE(?, last_status_code), last_error = ?, updated_at = ?
            WHERE id = ? AND status = 'pending' AND attempts = ?
            """, arguments: [.text(status.rawValue), .integer(Int64(made)), next.map(StorageValue.integer) ?? .null,
                             statusCode.map { .integer(Int64($0)) } ?? .null, error.map(StorageValue.text) ?? .null,
                             .integer(now), .integer(id), .integer(Int64(made - 1))]) == 1
    }

    /// A pending delivery that will not be attempted: `status` with `reason`.
    static func end(_ handle: any StorageHandle, id: Int64, status: WebhookDeliveryStatus, reason: String,
                    now: Int64) throws {
        try handle.execute("""
            UPDATE webhook_deliveries SET status = ?, next_attempt_at = NULL, last_error = ?, updated_at = ?
            WHERE id = ? AND status = 'pending'
            """, arguments: [.text(status.rawValue), .text(reason), .integer(now), .integer(id)])
    }

    /// Every pending delivery of a deleted endpoint `cancelled`.
    static func cancelPending(_ handle: any StorageHandle, endpoint: String, now: Int64) throws {
        try handle.execute("""
            UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL,
                last_error = 'its endpoint was deleted', updated_at = ?
            WHERE endpoint_id = ? AND status = 'pending'
            """, arguments: [.integer(now), .text(endpoint)])
    }

    /// Deletes up to `limit` finished deliveries last changed before
    /// `before`, with their attempts; how many.
    static func prune(_ handle: any StorageHandle, before: Int64, limit: Int) throws -> Int {
        let ids = try handle.query("""
            SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < ? ORDER BY updated_at LIMIT ?
            """, arguments: [.integer(before), .integer(Int64(limit))]).map { try $0.get(0, as: Int64.self) }
        guard !ids.isEmpty else { return 0 }
        let list = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        try handle.execute("DELETE FROM webhook_attempts WHERE delivery_id IN (\(list))", arguments: ids.map(StorageValue.integer))
        return try handle.execute("DELETE FROM webhook_deliveries WHERE id IN (\(list))",
                                  arguments: ids.map(StorageValue.integer))
    }

    private static func delivery(_ row: StorageRow) throws -> WebhookDelivery {
        WebhookDelivery(
            id: try row.get(0), endpointID: try row.get(1), eventID: try row.get(2), eventType: try row.get(3),
            status: WebhookDeliveryStatus(rawValue: try row.get(4)) ?? .failed, attempts: try row.get(5),
            nextAttemptAt: try row.get(6, as: Int64?.self).map(Timestamp.init(millisecondsSince1970:)),
            lastStatusCode: try row.get(7), lastError: try row.get(8),
            createdAt: Timestamp(millisecondsSince1970: try row.get(9)),
            updatedAt: Timestamp(millisecondsSince1970: try row.get(10)))
    }
}

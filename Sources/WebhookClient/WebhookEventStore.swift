import Capabilities
import Domain

/// The events' rows: the body each was fanned out with, by id, by time
/// (and type) for the admins' list and a replay, by publication time for
/// the retention.
enum WebhookEventStore {
    static let columns = "id, type, occurred_at, created_at, body"

    /// Whether it was new: an event published again (its job run twice) is
    /// the one stored.
    static func insert(_ handle: any StorageHandle, _ event: WebhookEvent, body: [UInt8], now: Int64) throws -> Bool {
        try handle.execute("""
            INSERT INTO webhook_events(id, type, occurred_at, created_at, body) VALUES(?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """, arguments: [.text(event.id), .text(event.type.rawValue), .integer(event.occurredAt), .integer(now),
                             .text(String(decoding: body, as: UTF8.self))]) == 1
    }

    static func find(_ handle: any StorageHandle, id: String) throws -> WebhookEventRecord? {
        try handle.queryOne("SELECT \(columns) FROM webhook_events WHERE id = ?", arguments: [.text(id)]).map(record)
    }

    /// Newest first: of `type` (any when nil), that happened at or after
    /// `since`, before `position` (the previous page's last).
    static func list(_ handle: any StorageHandle, type: String?, since: Int64?, before position: WebhookEventPosition?,
                     limit: Int) throws -> [WebhookEventRecord] {
        var conditions: [String] = []
        var arguments: [StorageValue] = []
        if let type {
            conditions.append("type = ?")
            arguments.append(.text(type))
        }
        if let since {
            conditions.append("occurred_at >= ?")
            arguments.append(.integer(since))
        }
        if let position {
            conditions.append("(occurred_at, id) < (?, ?)")
            arguments += [.integer(position.occurredAt), .text(position.id)]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try handle.query("""
            SELECT \(columns) FROM webhook_events \(filter) ORDER BY occurred_at DESC, id DESC LIMIT ?
            """, arguments: arguments + [.integer(Int64(limit))]).map(record)
    }

    /// Oldest first, for a replay: the ids and types of events of `types`
    /// (every type when empty) that happened at or after `since`, after
    /// `position`.
    static func replayed(_ handle: any StorageHandle, types: [WebhookEventType], since: Int64,
                         after position: WebhookEventPosition?, limit: Int) throws -> [WebhookEventPosition] {
        var conditions = ["occurred_at >= ?"]
        var arguments: [StorageValue] = [.integer(since)]
        if !types.isEmpty {
            conditions.append("type IN (\(Array(repeating: "?", count: types.count).joined(separator: ", ")))")
            arguments += types.map { .text($0.rawValue) }
        }
        if let position {
            conditions.append("(occurred_at, id) > (?, ?)")
            arguments += [.integer(position.occurredAt), .text(position.id)]
        }
        return try handle.query("""
            SELECT occurred_at, id, type FROM webhook_events WHERE \(conditions.joined(separator: " AND "))
            ORDER BY occurred_at, id LIMIT ?
            """, arguments: arguments + [.integer(Int64(limit))]).map {
            WebhookEventPosition(occurredAt: try $0.get(0), id: try $0.get(1), type: try $0.get(2))
        }
    }

    /// Deletes up to `limit` events published before `before`; how many.
    static func prune(_ handle: any StorageHandle, before: Int64, limit: Int) throws -> Int {
        try handle.execute("""
            DELETE FROM webhook_events WHERE id IN (
                SELECT id FROM webhook_events WHERE created_at < ? ORDER BY created_at LIMIT ?)
            """, arguments: [.integer(before), .integer(Int64(limit))])
    }

    private static func record(_ row: StorageRow) throws -> WebhookEventRecord {
        WebhookEventRecord(id: try row.get(0), type: try row.get(1),
                           occurredAt: Timestamp(millisecondsSince1970: try row.get(2)),
                           createdAt: Timestamp(millisecondsSince1970: try row.get(3)),
                           body: Array(try row.get(4, as: String.self).utf8))
    }
}

import Capabilities
import Domain

/// The endpoints' rows. A handful per shop: the fan-out reads every
/// enabled one in the event's transaction, so an endpoint made, changed or
/// disabled on any replica is seen by the next event, with no cache to
/// keep coherent.
enum WebhookEndpointStore {
    static let columns = """
        id, url, description, event_types, status, disabled_reason, created_at, updated_at, failing_since,
        last_success_at, previous_secret_expires_at
        """

    static func find(_ handle: any StorageHandle, id: String, locking: Bool = false) throws -> WebhookEndpoint? {
        try handle.queryOne("SELECT \(columns) FROM webhook_endpoints WHERE id = ?\(locking ? handle.lockingRead : "")",
                            arguments: [.text(id)]).map(endpoint)
    }

    /// Newest first, after the endpoint `after` (the previous page's last).
    static func list(_ handle: any StorageHandle, after: String?, limit: Int) throws -> [WebhookEndpoint] {
        if let after {
            return try handle.query("SELECT \(columns) FROM webhook_endpoints WHERE id < ? ORDER BY id DESC LIMIT ?",
                                    arguments: [.text(after), .integer(Int64(limit))]).map(endpoint)
        }
        return try handle.query("SELECT \(columns) FROM webhook_endpoints ORDER BY id DESC LIMIT ?",
                                arguments: [.integer(Int64(limit))]).map(endpoint)
    }

    /// The enabled endpoints' ids and types: whom an event fans out to.
    static func enabled(_ handle: any StorageHandle) throws -> [(id: String, receives: (WebhookEventType) -> Bool)] {
        try handle.query("SELECT id, event_types FROM webhook_endpoints WHERE status = 'enabled' ORDER BY id",
                         arguments: []).map { row in
            let types = eventTypes(try row.get(1))
            return (try row.get(0), { types.isEmpty || types.contains($0) })
        }
    }

    /// The secrets an attempt signs with now: the current one, and the
    /// previous one while its overlap lasts.
    static func secrets(_ handle: any StorageHandle, id: String, now: Int64) throws -> [String] {
        guard let row = try handle.queryOne("""
            SELECT secret, previous_secret, previous_secret_expires_at FROM webhook_endpoints WHERE id = ?
            """, arguments: [.text(id)]) else { return [] }
        var secrets = [try row.get(0, as: String.self)]
        if let previous = try row.get(1, as: String?.self), let until = try row.get(2, as: Int64?.self), until > now {
            secrets.append(previous)
        }
        return secrets
    }

    static func insert(_ handle: any StorageHandle, id: String, fields: WebhookEndpointFields, secret: String,
                       now: Int64) throws {
        try handle.execute("""
            INSERT INTO webhook_endpoints(id, url, description, event_types, status, secret, created_at, updated_at)
            VALUES(?, ?, ?, ?, 'enabled', ?, ?, ?)
            """, arguments: [.text(id), .text(fields.url), .text(fields.description), .text(text(fields.eventTypes)),
                             .text(secret), .integer(now), .integer(now)])
    }

    /// `fields` in place of `endpoint`'s. Disabling is the admin's; enabling
    /// clears the reason and the failing streak.
    static func update(_ handle: any StorageHandle, _ endpoint: WebhookEndpoint, to fields: WebhookEndpointFields,
                       now: Int64) throws {
        let reason: StorageValue
        var failingSince: StorageValue = endpoint.failingSince.map { .integer($0.millisecondsSince1970) } ?? .null
        switch (endpoint.status, fields.status) {
        case (.enabled, .disabled): reason = .text(WebhookDisabledReason.admin.rawValue)
        case (.disabled, .disabled): reason = endpoint.disabledReason.map { .text($0.rawValue) } ?? .null
        case (_, .enabled):
            reason = .null
            if endpoint.status == .disabled { failingSince = .null }
        }
        try handle.execute("""
            UPDATE webhook_endpoints SET url = ?, description = ?, event_types = ?, status = ?, disabled_reason = ?,
                failing_since = ?, updated_at = ?
            WHERE id = ?
            """, arguments: [.text(fields.url), .text(fields.description), .text(text(fields.eventTypes)),
                             .text(fields.status.rawValue), reason, failingSince, .integer(now), .text(endpoint.id)])
    }

    static func delete(_ handle: any StorageHandle, id: String) throws -> Bool {
        try handle.execute("DELETE FROM webhook_endpoints WHERE id = ?", arguments: [.text(id)]) == 1
    }

    /// `secret` signs from now on; the one it replaces signs beside it until
    /// `previousUntil` (none when nil).
    static func rotate(_ handle: any StorageHandle, id: String, secret: String, previousUntil: Int64?,
                       now: Int64) throws {
        // The right-hand `secret` is the row's value before this update.
        if let previousUntil {
            try handle.execute("""
                UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = ?, secret = ?,
                    updated_at = ?
                WHERE id = ?
                """, arguments: [.integer(previousUntil), .text(secret), .integer(now), .text(id)])
        } else {
            try handle.execute("""
                UPDATE webhook_endpoints SET previous_secret = NULL, previous_secret_expires_at = NULL, secret = ?,
                    updated_at = ?
                WHERE id = ?
                """, arguments: [.text(secret), .integer(now), .text(id)])
        }
    }

    /// An attempt succeeded: the failing streak ends. Written only when it
    /// changes something a reader sees (a streak, or a success more than a
    /// second after the last recorded), so a busy endpoint's successes do
    /// not each rewrite its row.
    static func succeeded(_ handle: any StorageHandle, id: String, now: Int64) throws {
        try handle.enqueue("""
            UPDATE webhook_endpoints SET failing_since = NULL, last_success_at = ?
            WHERE id = ? AND (failing_since IS NOT NULL OR last_success_at IS NULL OR last_success_at < ?)
            """, arguments: [.integer(now), .text(id), .integer(now - 1000)])
    }

    /// An attempt failed: the streak starts now unless it had; answers when
    /// it started.
    static func failed(_ handle: any StorageHandle, id: String, now: Int64) throws -> Int64? {
        guard let row = try handle.queryOne("SELECT failing_since FROM webhook_endpoints WHERE id = ?\(handle.lockingRead)",
                                            arguments: [.text(id)]) else { return nil }
        if let since = try row.get(0, as: Int64?.self) { return since }
        try handle.enqueue("UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?",
                           arguments: [.integer(now), .text(id)])
        return now
    }

    /// Disabled by the service, for `reason`; answers whether it was enabled.
    static func disable(_ handle: any StorageHandle, id: String, reason: WebhookDisabledReason, now: Int64) throws -> Bool {
        try handle.execute("""
            UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ?, updated_at = ?
            WHERE id = ? AND status = 'enabled'
            """, arguments: [.text(reason.rawValue), .integer(now), .text(id)]) == 1
    }

    private static func endpoint(_ row: StorageRow) throws -> WebhookEndpoint {
        func time(_ index: Int) throws -> Timestamp? {
            try row.get(index, as: Int64?.self).map(Timestamp.init(millisecondsSince1970:))
        }
        return WebhookEndpoint(
            id: try row.get(0), url: try row.get(1), description: try row.get(2), eventTypes: eventTypes(try row.get(3)),
            status: WebhookEndpointStatus(rawValue: try row.get(4)) ?? .disabled,
            disabledReason: try row.get(5, as: String?.self).flatMap(WebhookDisabledReason.init(rawValue:)),
            createdAt: Timestamp(millisecondsSince1970: try row.get(6)),
            updatedAt: Timestamp(millisecondsSince1970: try row.get(7)), failingSince: try time(8),
            lastSuccessAt: try time(9), previousSecretExpiresAt: try time(10))
    }

    /// Stored comma-separated; empty for every type.
    static func eventTypes(_ text: String) -> [WebhookEventType] {
        text.split(separator: ",").compactMap { WebhookEventType(rawValue: String($0)) }
    }

    static func text(_ types: [WebhookEventType]) -> String {
        types.map(\.rawValue).joined(separator: ",")
    }
}

import Domain
import Formats

/// The webhooks' bodies in the admin API, members in the order
/// openapi.yaml lists them, times in RFC 3339 (null when unset):
/// - an endpoint `{id, url, description, event_types, status,
///   disabled_reason, failing_since, last_success_at,
///   previous_secret_expires_at, created_at, updated_at}`, and `secret`
///   after them when it is made (shown this once);
/// - a delivery `{id, endpoint_id, event_id, event_type, status, attempts,
///   next_attempt_at, last_status_code, last_error, created_at,
///   updated_at}`, and `log` (its attempts `{at, status_code, latency_ms,
///   error}`, oldest first) when it is read alone;
/// - an event `{id, type, occurred_at, created_at, payload}`, the payload
///   the body every endpoint is sent;
/// - a page of any of them `{items, next_cursor}`.
enum WebhookJSON {
    static func endpoint(_ endpoint: WebhookEndpoint) -> [UInt8] {
        var json = JSONBytes(capacity: 512 + endpoint.url.utf8.count + endpoint.description.utf8.count)
        write(endpoint, to: &json)
        json.raw("}")
        return json.bytes
    }

    static func created(_ created: WebhookEndpointCreated) -> [UInt8] {
        var json = JSONBytes(capacity: 640 + created.endpoint.url.utf8.count + created.endpoint.description.utf8.count)
        write(created.endpoint, to: &json)
        json.raw(",\"secret\":")
        json.string(created.secret)
        json.raw("}")
        return json.bytes
    }

    static func endpoints(_ page: Page<WebhookEndpoint>) -> [UInt8] {
        var json = JSONBytes(capacity: 64 + page.items.count * 640)
        json.page(page.items, nextCursor: page.nextCursor) {
            write($0, to: &$1)
            $1.raw("}")
        }
        return json.bytes
    }

    static func secret(_ secret: WebhookSecret) -> [UInt8] {
        var json = JSONBytes(capacity: 128)
        json.raw("{\"secret\":")
        json.string(secret.secret)
        json.raw(",\"previous_secret_expires_at\":")
        time(secret.previousExpiresAt, &json)
        json.raw("}")
        return json.bytes
    }

    static func delivery(_ delivery: WebhookDelivery) -> [UInt8] {
        var json = JSONBytes(capacity: 512)
        write(delivery, to: &json)
        json.raw("}")
        return json.bytes
    }

    static func deliveryLog(_ log: WebhookDeliveryLog) -> [UInt8] {
        var json = JSONBytes(capacity: 512 + log.attempts.count * 160)
        write(log.delivery, to: &json)
        json.raw(",\"log\":[")
        for (index, attempt) in log.attempts.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw("{\"at\":")
            json.timestamp(attempt.at)
            json.raw(",\"status_code\":")
            if let code = attempt.statusCode { json.integer(code) } else { json.raw("null") }
            json.raw(",\"latency_ms\":")
            json.integer(attempt.latencyMilliseconds)
            json.raw(",\"error\":")
            text(attempt.error, &json)
            json.raw("}")
        }
        json.raw("]}")
        return json.bytes
    }

    static func deliveries(_ page: Page<WebhookDelivery>) -> [UInt8] {
        var json = JSONBytes(capacity: 64 + page.items.count * 480)
        json.page(page.items, nextCursor: page.nextCursor) {
            write($0, to: &$1)
            $1.raw("}")
        }
        return json.bytes
    }

    static func events(_ page: Page<WebhookEventRecord>) -> [UInt8] {
        var json = JSONBytes(capacity: page.items.reduce(64) { $0 + 160 + $1.body.count })
        json.page(page.items, nextCursor: page.nextCursor) { event, json in
            json.raw("{\"id\":")
            json.string(event.id)
            json.raw(",\"type\":")
            json.string(event.type)
            json.raw(",\"occurred_at\":")
            json.timestamp(event.occurredAt)
            json.raw(",\"created_at\":")
            json.timestamp(event.createdAt)
            json.raw(",\"payload\":")
            // The body as it was fanned out, checked to be strict JSON
            // (else null), as a job's payload is.
            if case .valid = JSONSyntax.check(event.body) { json.rawValue(event.body) } else { json.raw("null") }
            json.raw("}")
        }
        return json.bytes
    }

    static func replay(_ replay: WebhookReplay) -> [UInt8] {
        var json = JSONBytes(capacity: 128)
        json.raw("{\"enqueued\":")
        json.integer(replay.enqueued)
        json.raw(replay.more ? ",\"more\":true" : ",\"more\":false")
        json.raw(",\"next_cursor\":")
        text(replay.nextCursor, &json)
        json.raw("}")
        return json.bytes
    }

    /// `{` and the endpoint's members, without the closing brace.
    private static func write(_ endpoint: WebhookEndpoint, to json: inout JSONBytes) {
        json.raw("{\"id\":")
        json.string(endpoint.id)
        json.raw(",\"url\":")
        json.string(endpoint.url)
        json.raw(",\"description\":")
        json.string(endpoint.description)
        json.raw(",\"event_types\":[")
        for (index, type) in endpoint.eventTypes.enumerated() {
            if index > 0 { json.raw(",") }
            json.rawString(type.rawValue)
        }
        json.raw("],\"status\":")
        json.rawString(endpoint.status.rawValue)
        json.raw(",\"disabled_reason\":")
        text(endpoint.disabledReason?.rawValue, &json)
        json.raw(",\"failing_since\":")
        time(endpoint.failingSince, &json)
        json.raw(",\"last_success_at\":")
        time(endpoint.lastSuccessAt, &json)
        json.raw(",\"previous_secret_expires_at\":")
        time(endpoint.previousSecretExpiresAt, &json)
        json.raw(",\"created_at\":")
        json.timestamp(endpoint.createdAt)
        json.raw(",\"updated_at\":")
        json.timestamp(endpoint.updatedAt)
    }

    /// `{` and the delivery's members, without the closing brace.
    private static func write(_ delivery: WebhookDelivery, to json: inout JSONBytes) {
        json.raw("{\"id\":")
        json.integer(delivery.id)
        json.raw(",\"endpoint_id\":")
        json.string(delivery.endpointID)
        json.raw(",\"event_id\":")
        json.string(delivery.eventID)
        json.raw(",\"event_type\":")
        json.string(delivery.eventType)
        json.raw(",\"status\":")
        json.rawString(delivery.status.rawValue)
        json.raw(",\"attempts\":")
        json.integer(delivery.attempts)
        json.raw(",\"next_attempt_at\":")
        time(delivery.nextAttemptAt, &json)
        json.raw(",\"last_status_code\":")
        if let code = delivery.lastStatusCode { json.integer(code) } else { json.raw("null") }
        json.raw(",\"last_error\":")
        text(delivery.lastError, &json)
        json.raw(",\"created_at\":")
        json.timestamp(delivery.createdAt)
        json.raw(",\"updated_at\":")
        json.timestamp(delivery.updatedAt)
    }

    private static func text(_ text: String?, _ json: inout JSONBytes) {
        if let text { json.string(text) } else { json.raw("null") }
    }

    private static func time(_ time: Timestamp?, _ json: inout JSONBytes) {
        if let time { json.timestamp(time) } else { json.raw("null") }
    }
}

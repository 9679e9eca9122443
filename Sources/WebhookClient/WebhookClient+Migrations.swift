import Capabilities

extension WebhookClient {
    /// Migrations 700-799. An endpoint keeps its secret (and, during a
    /// rotation's overlap, the previous one) to sign with; an event keeps
    /// the body fixed when it fanned out, so every attempt and every replay
    /// sends the same bytes; a delivery is unique per endpoint and event;
    /// an attempt is one row of a delivery's log. Every list is one index
    /// range: an endpoint's deliveries newest first (by status too), the
    /// events by time (by type too), a delivery's attempts, and what the
    /// retention prunes.
    public static let migrations: [Migration] = [
        Migration(version: 700, name: "webhooks", portableSQL: """
            CREATE TABLE webhook_endpoints (
                id                         TEXT PRIMARY KEY,
                url                        TEXT NOT NULL,
                description                TEXT NOT NULL,
                event_types                TEXT NOT NULL,
                status                     TEXT NOT NULL CHECK (status IN ('enabled', 'disabled')),
                disabled_reason            TEXT,
                secret                     TEXT NOT NULL,
                previous_secret            TEXT,
                previous_secret_expires_at INTEGER,
                failing_since              INTEGER,
                last_success_at            INTEGER,
                created_at                 INTEGER NOT NULL,
                updated_at                 INTEGER NOT NULL
            ) STRICT;
            CREATE TABLE webhook_events (
                id          TEXT PRIMARY KEY,
                type        TEXT NOT NULL,
                occurred_at INTEGER NOT NULL,
                created_at  INTEGER NOT NULL,
                body        TEXT NOT NULL
            ) STRICT;
            CREATE INDEX webhook_events_by_time ON webhook_events (occurred_at, id);
            CREATE INDEX webhook_events_by_type ON webhook_events (type, occurred_at, id);
            CREATE INDEX webhook_events_created ON webhook_events (created_at);
            CREATE TABLE webhook_deliveries (
                id               INTEGER PRIMARY KEY,
                endpoint_id      TEXT NOT NULL,
                event_id         TEXT NOT NULL,
                event_type       TEXT NOT NULL,
                status           TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
                attempts         INTEGER NOT NULL DEFAULT 0,
                next_attempt_at  INTEGER,
                last_status_code INTEGER,
                last_error       TEXT,
                created_at       INTEGER NOT NULL,
                updated_at       INTEGER NOT NULL,
                UNIQUE (endpoint_id, event_id)
            ) STRICT;
            CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id);
            CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries (endpoint_id, status, id);
            CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE status <> 'pending';
            CREATE TABLE webhook_attempts (
                id           INTEGER PRIMARY KEY,
                delivery_id  INTEGER NOT NULL,
                attempted_at INTEGER NOT NULL,
                status_code  INTEGER,
                latency_ms   INTEGER NOT NULL,
                error        TEXT
            ) STRICT;
            CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id, id);
            """),
    ]
}

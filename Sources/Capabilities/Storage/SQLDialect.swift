/// The SQL a backend speaks. Store code mostly writes portable SQL; where
/// the two differ (migrations' column types and `STRICT`, `INSERT OR IGNORE`
/// against `ON CONFLICT DO NOTHING`, FTS5) it picks by the handle's dialect.
public enum SQLDialect: Sendable, Hashable {
    case sqlite
    case postgres
}

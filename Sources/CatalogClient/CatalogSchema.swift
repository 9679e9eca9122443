import Capabilities

/// The catalogue's tables (migration versions 200–299).
///
/// - `products`: one row per product; `version` grows by one on every change
///   and orders the in-memory application of concurrent commits.
/// - `stock_checkouts`: one row per checkout that ever reserved stock, with
///   its status (`reserved` → `committed` | `released`); makes reserve,
///   commit and release idempotent and survives `kill -9`.
/// - `stock_reservations`: the units a checkout holds, per product, while it
///   is `reserved` (deleted by commit and release). Its stock is already
///   taken out of `products.stock`.
/// - `stock_returns`: the keys (e.g. a cancelled order's id) whose stock was
///   returned, so a retried cancellation cannot restock twice.
enum CatalogSchema {
    static let migrations: [Migration] = [
        Migration(version: 200, name: "catalog products", sql: """
            CREATE TABLE products (
                id             TEXT PRIMARY KEY,
                sku            TEXT NOT NULL UNIQUE,
                name           TEXT NOT NULL,
                description    TEXT NOT NULL,
                price_amount   INTEGER NOT NULL CHECK (price_amount >= 0),
                price_currency TEXT NOT NULL CHECK (length(price_currency) = 3),
                stock          INTEGER NOT NULL CHECK (stock BETWEEN 0 AND 1000000),
                active         INTEGER NOT NULL CHECK (active IN (0, 1)),
                version        INTEGER NOT NULL CHECK (version >= 1),
                created_at     TEXT NOT NULL,
                updated_at     TEXT NOT NULL
            ) STRICT;
            """),
        Migration(version: 201, name: "catalog stock reservations and returns", sql: """
            CREATE TABLE stock_checkouts (
                checkout_id TEXT PRIMARY KEY,
                status      TEXT NOT NULL CHECK (status IN ('reserved', 'committed', 'released')),
                created_at  TEXT NOT NULL,
                updated_at  TEXT NOT NULL
            ) STRICT;
            CREATE INDEX stock_checkouts_reserved ON stock_checkouts(created_at) WHERE status = 'reserved';
            CREATE TABLE stock_reservations (
                checkout_id TEXT NOT NULL REFERENCES stock_checkouts(checkout_id),
                product_id  TEXT NOT NULL REFERENCES products(id),
                quantity    INTEGER NOT NULL CHECK (quantity >= 1),
                created_at  TEXT NOT NULL,
                PRIMARY KEY (checkout_id, product_id)
            ) STRICT;
            CREATE INDEX stock_reservations_product ON stock_reservations(product_id);
            CREATE TABLE stock_returns (
                return_key TEXT PRIMARY KEY,
                units      INTEGER NOT NULL CHECK (units >= 0),
                created_at TEXT NOT NULL
            ) STRICT;
            """),
    ]

    /// RFC 3339 UTC with milliseconds, as SQLite writes it.
    static let now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
}

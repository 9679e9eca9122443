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
/// - `products.name_folded` (202): the case-folded name the list is ordered
///   by (Swift's `lowercased()`, written by the client: SQLite's `lower()`
///   folds ASCII only), indexed with the id for keyset paging. Rows written
///   before 202 get it at the next activation (`CatalogStore.foldNames`).
/// - `products_search` (202): an FTS5 index over name, description and SKU,
///   with prefix indexes for 2 to 8 characters: SQLite 3.40's FTS5 merges
///   the doclists of every term a longer prefix matches before returning a
///   row, which at 1,000,000 seeded products cost ~5 ms more per query; at
///   100,000 the extra indexes grew the index 17 → 30 MB and cut the p99 of
///   150 one-word prefix queries 7.4 → 3.9 ms; with `products` as its
///   external content (keyed by `products.rowid`),
///   kept in step by triggers, so inside the writing transaction (a stock
///   change rewrites the row's name too, hence the update trigger's WHEN:
///   the index is touched only when indexed text changed); the
///   migration back-fills it (`rebuild`). The rowid of a table without an
///   INTEGER PRIMARY KEY may change on `VACUUM`: after one, run
///   `INSERT INTO products_search(products_search) VALUES('rebuild')`.
/// - `products_by_currency` (202): activation checks every price is in the
///   deployment's currency with two index probes instead of a table scan.
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
        Migration(version: 202, name: "catalog keyset list order and full-text search", sql: """
            ALTER TABLE products ADD COLUMN name_folded TEXT;
            CREATE INDEX products_by_name ON products(name_folded, id);
            CREATE INDEX products_active_by_name ON products(name_folded, id) WHERE active = 1;
            CREATE INDEX products_by_currency ON products(price_currency);
            CREATE VIRTUAL TABLE products_search USING fts5(
                name, description, sku,
                content = 'products', content_rowid = 'rowid',
                tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6 7 8'
            );
            CREATE TRIGGER products_search_insert AFTER INSERT ON products BEGIN
                INSERT INTO products_search(rowid, name, description, sku)
                VALUES (new.rowid, new.name, new.description, new.sku);
            END;
            CREATE TRIGGER products_search_delete AFTER DELETE ON products BEGIN
                INSERT INTO products_search(products_search, rowid, name, description, sku)
                VALUES ('delete', old.rowid, old.name, old.description, old.sku);
            END;
            CREATE TRIGGER products_search_update AFTER UPDATE OF name, description, sku ON products
            WHEN old.name IS NOT new.name OR old.description IS NOT new.description OR old.sku IS NOT new.sku
            BEGIN
                INSERT INTO products_search(products_search, rowid, name, description, sku)
                VALUES ('delete', old.rowid, old.name, old.description, old.sku);
                INSERT INTO products_search(rowid, name, description, sku)
                VALUES (new.rowid, new.name, new.description, new.sku);
            END;
            INSERT INTO products_search(products_search) VALUES ('rebuild');
            """),
    ]

    /// RFC 3339 UTC with milliseconds, as SQLite writes it.
    static let now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
}

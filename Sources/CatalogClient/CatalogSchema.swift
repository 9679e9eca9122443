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
/// - `stock_checkouts.lease_owner`, `lease_expires_at` (203): the process
///   running a reserved checkout and when its lease runs out (the
///   database's clock); see `CatalogStore.reserve` and `expiredReservations`.
/// - `products.name_folded` (202): the case-folded name the list is ordered
///   by (Swift's `lowercased()`, written by the client: SQLite's `lower()`
///   folds ASCII only), indexed with the id for keyset paging. Rows written
///   before 202 get it at the next activation (`CatalogStore.foldNames`).
/// - `products_search` (202): an FTS5 index over name, description and SKU,
///   with prefix indexes for 2 to 8 characters (without them SQLite 3.40's
///   FTS5 merges the doclists of every term a longer prefix matches before
///   returning a row; they trade index size for that); with `products` as its
///   external content (keyed by `products.rowid`),
///   kept in step by triggers, so inside the writing transaction (a stock
///   change rewrites the row's name too, hence the update trigger's WHEN:
///   the index is touched only when indexed text changed); the
///   migration back-fills it (`rebuild`). The rowid of a table without an
///   INTEGER PRIMARY KEY may change on `VACUUM`: after one, run
///   `INSERT INTO products_search(products_search) VALUES('rebuild')`.
/// - `products_by_currency` (202): activation checks every price is in the
///   deployment's currency with two index probes instead of a table scan.
/// - `products_inactive_by_name` (204): an admin's list of deactivated
///   products, keyset-paged in name order like the public list; partial, so
///   it holds only the (few) deactivated rows instead of the list walking
///   every active one to find them.
/// - `products.low_stock_threshold` (205): the stock level at or below
///   which a write that takes the stock there enqueues `product.stock_low`;
///   NULL (every row written before 205): no alert.
///
/// On PostgreSQL the same tables, with these differences:
/// - `products.rowid`: an identity column standing in for SQLite's implicit
///   row number (insertion order), so search's tie order, its cursor and
///   its page probe (`WHERE rowid = ?`) are the same SQL on both. Unlike
///   SQLite's, it never changes (no `VACUUM` caveat).
/// - `products.search` (202): a stored generated `tsvector` over the name
///   (weight A), SKU (B) and description (C), so it changes in the same
///   statement as the row, with a GIN index (`products_search`). Text goes
///   through `catalog_fold` first: `lower()` and `translate()` of the
///   Latin letters with diacritics (both immutable, as a generated column
///   needs; the `unaccent` extension is neither immutable nor always
///   installable), so `BRÄSS` finds "brass" as FTS5's `remove_diacritics`
///   does. The `simple` configuration: no stemming and no stop words, as
///   FTS5's unicode61 tokenizer.
/// - `name_folded` is `COLLATE "C"`: byte order, as SQLite compares it,
///   whatever the database's collation.
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
            """, postgresSQL: """
            CREATE TABLE products (
                id             TEXT PRIMARY KEY,
                sku            TEXT NOT NULL UNIQUE,
                name           TEXT NOT NULL,
                description    TEXT NOT NULL,
                price_amount   BIGINT NOT NULL CHECK (price_amount >= 0),
                price_currency TEXT NOT NULL CHECK (length(price_currency) = 3),
                stock          BIGINT NOT NULL CHECK (stock BETWEEN 0 AND 1000000),
                active         BIGINT NOT NULL CHECK (active IN (0, 1)),
                version        BIGINT NOT NULL CHECK (version >= 1),
                created_at     TEXT NOT NULL,
                updated_at     TEXT NOT NULL,
                rowid          BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE
            );
            """),
        Migration(version: 201, name: "catalog stock reservations and returns", portableSQL: """
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
            """, postgresSQL: """
            ALTER TABLE products ADD COLUMN name_folded TEXT COLLATE "C";
            CREATE INDEX products_by_name ON products(name_folded, id);
            CREATE INDEX products_active_by_name ON products(name_folded, id) WHERE active = 1;
            CREATE INDEX products_by_currency ON products(price_currency);
            CREATE FUNCTION catalog_fold(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT translate(lower($1),
                    'àáâãäåāăąçćčďđèéêëēėęěìíîïīįłñńňòóôõöøōőŕřśšşţťùúûüūůűųýÿźżž',
                    'aaaaaaaaacccddeeeeeeeeiiiiiilnnnoooooooorrsssttuuuuuuuuyyzzz')
            $$;
            ALTER TABLE products ADD COLUMN search tsvector GENERATED ALWAYS AS (
                setweight(to_tsvector('simple', catalog_fold(name)), 'A') ||
                setweight(to_tsvector('simple', catalog_fold(sku)), 'B') ||
                setweight(to_tsvector('simple', catalog_fold(description)), 'C')
            ) STORED;
            CREATE INDEX products_search ON products USING gin (search);
            """),
        // A reserved checkout is held by the process running it until its
        // lease runs out; recovery releases only expired leases (or, at
        // start-up, the restarting process's own), never a checkout another
        // replica is running. Rows reserved before this migration have no
        // holder and count as expired ('' sorts before any time). One
        // partial index: the owner's own are found among the reserved rows
        // (the checkouts in flight), not worth an index kept on every
        // checkout.
        Migration(version: 203, name: "catalog checkout leases", portableSQL: """
            ALTER TABLE stock_checkouts ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
            ALTER TABLE stock_checkouts ADD COLUMN lease_expires_at TEXT NOT NULL DEFAULT '';
            DROP INDEX stock_checkouts_reserved;
            CREATE INDEX stock_checkouts_lease ON stock_checkouts(lease_expires_at) WHERE status = 'reserved';
            """),
        Migration(version: 204, name: "catalog deactivated products by name", portableSQL: """
            CREATE INDEX products_inactive_by_name ON products(name_folded, id) WHERE active = 0;
            """),
        Migration(version: 205, name: "catalog stock alert threshold", portableSQL: """
            ALTER TABLE products ADD COLUMN low_stock_threshold INTEGER
                CHECK (low_stock_threshold BETWEEN 0 AND 1000000);
            """),
    ]

    /// RFC 3339 UTC with milliseconds, as SQLite writes it; PostgreSQL's
    /// `now()` (the transaction's start) in the same format.
    static func now(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
        case .postgres: #"to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
        }
    }

    /// `now` `seconds` later, in the same format (a lease's end): the
    /// database's clock, so replicas whose clocks differ agree on expiry.
    static func now(_ dialect: SQLDialect, plus seconds: Int) -> String {
        switch dialect {
        case .sqlite: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+\(seconds) seconds')"
        case .postgres: #"to_char((now() + interval '\#(seconds) seconds') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
        }
    }
}

/// One schema change. Versions must be unique and ascending in the list
/// handed to `SQLiteStorage.open`; `sql` may hold several statements but no
/// transaction control (each migration already runs in its own transaction,
/// so a failure leaves no trace of it). Callers are expected to declare their
/// tables `STRICT`.
///
/// `postgresSQL` is the same change in PostgreSQL's dialect (BIGINT for
/// INTEGER, no `STRICT`, BYTEA for BLOB, …); a client whose migrations all
/// have it can run on `PostgresStorage`, which refuses to open otherwise.
public struct Migration: Sendable, Hashable {
    public let version: Int64
    public let name: String
    public let sql: String
    public let postgresSQL: String?

    public init(version: Int64, name: String, sql: String, postgresSQL: String? = nil) {
        self.version = version
        self.name = name
        self.sql = sql
        self.postgresSQL = postgresSQL
    }

    /// A change whose PostgreSQL dialect is its SQLite text with the types
    /// renamed (`Migration.postgresDialect`): the tables and indexes that use
    /// nothing else of either dialect.
    public init(version: Int64, name: String, portableSQL sql: String) {
        self.init(version: version, name: name, sql: sql, postgresSQL: Self.postgresDialect(sql))
    }

    /// `sql` with INTEGER as BIGINT, BLOB as BYTEA and no `STRICT`; an
    /// `INTEGER PRIMARY KEY` (SQLite's rowid, numbered on insert) becomes an
    /// identity column.
    static func postgresDialect(_ sql: String) -> String {
        sql.replacing(#/\bINTEGER PRIMARY KEY\b/#, with: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")
            .replacing(#/\bINTEGER\b/#, with: "BIGINT")
            .replacing(#/\bBLOB\b/#, with: "BYTEA")
            .replacing(#/\)\s*STRICT;/#, with: ");")
    }
}

/// A row of `schema_migrations`.
public struct AppliedMigration: Sendable, Hashable {
    public let version: Int64
    public let name: String
    /// RFC 3339 UTC, as recorded by SQLite.
    public let appliedAt: String
}

/// Applies migrations on the writer connection during `open`.
enum MigrationRunner {
    static let bookkeepingSQL = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version    INTEGER PRIMARY KEY,
            name       TEXT NOT NULL,
            applied_at TEXT NOT NULL
        ) STRICT;
        CREATE TABLE IF NOT EXISTS storage_probe (
            id         INTEGER PRIMARY KEY CHECK (id = 1),
            probe_count INTEGER NOT NULL
        ) STRICT;
        """ + ChangeOutbox.sqliteSchema + SharedRateBuckets.sqliteSchema + JobQueueSchema.sqliteSchema

    static func validate(_ migrations: [Migration]) throws {
        for (previous, next) in zip(migrations, migrations.dropFirst()) where next.version <= previous.version {
            throw StorageError.invalidMigrations("version \(next.version) follows \(previous.version); versions must ascend")
        }
    }

    /// Returns the versions applied by this call.
    @discardableResult
    static func apply(_ migrations: [Migration], on connection: SQLiteConnection) throws -> [Int64] {
        try validate(migrations)
        try inTransaction(connection, version: 0, name: "bookkeeping") {
            try connection.withTransactionControlDenied { try connection.exec(bookkeepingSQL) }
        }
        var recorded: [Int64: String] = [:]
        for row in try connection.run("SELECT version, name FROM schema_migrations", []) {
            recorded[try row.get(0)] = try row.get(1)
        }
        var applied: [Int64] = []
        for migration in migrations {
            if let name = recorded[migration.version] {
                guard name == migration.name else {
                    throw StorageError.invalidMigrations(
                        "version \(migration.version) was applied as \"\(name)\", now named \"\(migration.name)\"")
                }
                continue
            }
            try inTransaction(connection, version: migration.version, name: migration.name) {
                try connection.withTransactionControlDenied { try connection.exec(migration.sql) }
                _ = try connection.run(
                    "INSERT INTO schema_migrations(version, name, applied_at) VALUES(?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                    [.integer(migration.version), .text(migration.name)])
            }
            applied.append(migration.version)
        }
        return applied
    }

    private static func inTransaction(_ connection: SQLiteConnection, version: Int64, name: String, _ body: () throws -> Void) throws {
        do {
            try connection.exec("BEGIN IMMEDIATE")
        } catch {
            if error.meansUnavailable(forReader: false) {
                throw StorageError.unavailable(reason: "migrations could not start a transaction", sqlite: error)
            }
            throw StorageError.migrationFailed(version: version, name: name, underlying: error)
        }
        do {
            try body()
            try connection.exec("COMMIT")
        } catch {
            if !connection.isAutocommit { try? connection.exec("ROLLBACK") }
            let underlying: SQLiteError
            switch error {
            case let e as SQLiteError: underlying = e
            case let e as StorageError:
                guard let sqlite = e.sqliteError else { throw e }
                underlying = sqlite
            default: throw error
            }
            if underlying.meansUnavailable(forReader: false) {
                throw StorageError.unavailable(reason: "migrations could not be written", sqlite: underlying)
            }
            throw StorageError.migrationFailed(version: version, name: name, underlying: underlying)
        }
    }
}

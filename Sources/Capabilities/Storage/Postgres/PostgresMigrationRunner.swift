/// Applies migrations' `postgresSQL` on the writer connection during `open`,
/// each in its own transaction. Replicas starting together on one database
/// take a transaction-scoped advisory lock first, so exactly one applies a
/// given version and the others see it recorded.
enum PostgresMigrationRunner {
    /// An arbitrary constant naming "the Axiom migrations" for
    /// `pg_advisory_xact_lock`.
    static let lockKey: Int64 = 0x4158_494F_4D00

    static let bookkeepingSQL = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version    BIGINT PRIMARY KEY,
            name       TEXT NOT NULL,
            applied_at TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS storage_probe (
            id          BIGINT PRIMARY KEY CHECK (id = 1),
            probe_count BIGINT NOT NULL
        );
        """ + ChangeOutbox.postgresSchema + SharedRateBuckets.postgresSchema + JobQueueSchema.postgresSchema

    static func apply(_ migrations: [Migration], on connection: PostgresConnection) throws {
        try MigrationRunner.validate(migrations)
        if let missing = migrations.first(where: { $0.postgresSQL == nil }) {
            throw StorageError.invalidMigrations(
                "migration \(missing.version) \(missing.name) has no PostgreSQL dialect (postgresSQL)")
        }
        try inTransaction(connection, version: 0, name: "bookkeeping") {
            try connection.exec(bookkeepingSQL)
        }
        for migration in migrations {
            try inTransaction(connection, version: migration.version, name: migration.name) {
                let recorded = try connection.run("SELECT name FROM schema_migrations WHERE version = $1",
                                                  [.integer(migration.version)]).rows.first
                if let recorded {
                    let name = try recorded.get(0, as: String.self)
                    guard name == migration.name else {
                        throw StorageError.invalidMigrations(
                            "version \(migration.version) was applied as \"\(name)\", now named \"\(migration.name)\"")
                    }
                    return
                }
                try connection.exec(migration.postgresSQL ?? "")
                _ = try connection.run("""
                    INSERT INTO schema_migrations(version, name, applied_at)
                    VALUES($1, $2, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                    """, [.integer(migration.version), .text(migration.name)])
            }
        }
    }

    private static func inTransaction(_ connection: PostgresConnection, version: Int64, name: String,
                                      _ body: () throws -> Void) throws {
        do {
            // Schema changes wait for the tables' users however long they
            // take (a replica paused mid-transaction): the writer's
            // lock_timeout is for its batches, not for a start-up.
            try connection.exec("BEGIN; SET LOCAL lock_timeout = 0")
            _ = try connection.run("SELECT pg_advisory_xact_lock($1)", [.integer(lockKey)])
            try body()
            try connection.exec("COMMIT")
        } catch {
            if connection.isHealthy { try? connection.exec("ROLLBACK") }
            guard let postgres = error as? PostgresError else { throw error }
            if postgres.meansUnavailable || !connection.isHealthy {
                throw StorageError.unavailable(reason: "migrations: PostgreSQL reported \(postgres.message)", sqlite: nil)
            }
            throw StorageError.postgresMigrationFailed(version: version, name: name, underlying: postgres)
        }
    }
}

import AxiomTestSupport
import Foundation
import Testing
@testable import Capabilities

@Suite struct MigrationTests {
    @Test func aPortableMigrationRunsOnPostgreSQLAsItsSQLiteTextInPostgreSQLTypes() {
        let migration = Migration(version: 1, name: "portable", portableSQL: """
            CREATE TABLE notes (
                id INTEGER PRIMARY KEY,
                body BLOB NOT NULL,
                integers_seen INTEGER NOT NULL CHECK (integers_seen >= 0)
            ) STRICT;
            CREATE INDEX notes_by_count ON notes(integers_seen);
            """)
        #expect(migration.postgresSQL == """
            CREATE TABLE notes (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                body BYTEA NOT NULL,
                integers_seen BIGINT NOT NULL CHECK (integers_seen >= 0)
            );
            CREATE INDEX notes_by_count ON notes(integers_seen);
            """)
    }

    @Test func appliesPendingMigrationsOnceAndRecordsThem() async throws {
        let directory = try TempDirectory()
        let first = try await Fixture.open(directory)
        let applied = try await first.appliedMigrations()
        #expect(applied.map(\.version) == [1, 2])
        #expect(applied.map(\.name) == ["create users", "create notes"])
        #expect(applied.allSatisfy { $0.appliedAt.hasSuffix("Z") && $0.appliedAt.contains("T") })
        // The tables exist and are STRICT.
        let strictTables = try await first.read { db in
            try db.query("SELECT name FROM pragma_table_list WHERE strict = 1 AND schema = 'main' ORDER BY name")
                .map { try $0.get(0, as: String.self) }
        }
        #expect(strictTables.contains("users") && strictTables.contains("notes") && strictTables.contains("schema_migrations"))
        await first.close()

        // Applying the same list again is a no-op: same rows, same timestamps.
        let second = try await Fixture.open(directory)
        #expect(try await second.appliedMigrations() == applied)
        await second.close()

        // A longer list applies only the new migration.
        let extended = Fixture.migrations + [
            Migration(version: 3, name: "add tags", sql: "CREATE TABLE tags (name TEXT PRIMARY KEY) STRICT;"),
        ]
        let third = try await SQLiteStorage.open(Fixture.configuration(directory), migrations: extended)
        let now = try await third.appliedMigrations()
        #expect(now.map(\.version) == [1, 2, 3])
        #expect(Array(now.prefix(2)) == applied)
        await third.close()
    }

    @Test func failingMigrationRollsBackAndThrows() async throws {
        let directory = try TempDirectory()
        let broken = Fixture.migrations + [
            Migration(version: 3, name: "half broken", sql: """
                CREATE TABLE half (x INTEGER) STRICT;
                INSERT INTO half VALUES (1);
                INSERT INTO no_such_table VALUES (1);
                """),
        ]
        let error = await #expect(throws: StorageError.self) {
            try await SQLiteStorage.open(Fixture.configuration(directory), migrations: broken)
        }
        guard case .migrationFailed(let version, let name, let underlying)? = error else {
            Issue.record("expected migrationFailed, got \(String(describing: error))")
            return
        }
        #expect(version == 3 && name == "half broken")
        #expect(underlying.message.contains("no_such_table"))

        // Migrations 1 and 2 stay applied; nothing of 3 remains.
        let storage = try await Fixture.open(directory)
        #expect(try await storage.appliedMigrations().map(\.version) == [1, 2])
        let halfExists = try await storage.read { db in
            try db.queryOne("SELECT count(*) FROM sqlite_master WHERE name = 'half'")?.get(0, as: Int64.self)
        }
        #expect(halfExists == 0)
        await storage.close()
    }

    @Test func rejectsUnorderedOrRenamedMigrations() async throws {
        let directory = try TempDirectory()
        let unordered = [Fixture.migrations[1], Fixture.migrations[0]]
        let error = await #expect(throws: StorageError.self) {
            try await SQLiteStorage.open(Fixture.configuration(directory), migrations: unordered)
        }
        guard case .invalidMigrations? = error else {
            Issue.record("expected invalidMigrations, got \(String(describing: error))")
            return
        }

        try await Fixture.open(directory).close()
        let renamed = [Migration(version: 1, name: "something else", sql: Fixture.migrations[0].sql)]
        let renameError = await #expect(throws: StorageError.self) {
            try await SQLiteStorage.open(Fixture.configuration(directory), migrations: renamed)
        }
        guard case .invalidMigrations(let why)? = renameError else {
            Issue.record("expected invalidMigrations, got \(String(describing: renameError))")
            return
        }
        #expect(why.contains("create users"))
    }

    @Test func migrationsMayNotControlTransactions() async throws {
        let directory = try TempDirectory()
        let sneaky = [Migration(version: 1, name: "commits early", sql: "CREATE TABLE a (x INTEGER) STRICT; COMMIT;")]
        let error = await #expect(throws: StorageError.self) {
            try await SQLiteStorage.open(Fixture.configuration(directory), migrations: sneaky)
        }
        guard case .migrationFailed(1, _, let underlying)? = error else {
            Issue.record("expected migrationFailed, got \(String(describing: error))")
            return
        }
        #expect(underlying.code == 23) // SQLITE_AUTH: refused by the authorizer
        let storage = try await SQLiteStorage.open(Fixture.configuration(directory))
        let tables = try await storage.read { db in
            try db.queryOne("SELECT count(*) FROM sqlite_master WHERE name = 'a'")?.get(0, as: Int64.self)
        }
        #expect(tables == 0)
        await storage.close()
    }
}

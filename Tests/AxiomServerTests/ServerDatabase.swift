import CLibPQ
import Foundation

/// Where a server test's data lives, and the arguments that point the
/// binary at it: a SQLite file in the test's temp directory, or, when this
/// run puts the server tests on PostgreSQL, a fresh schema of the test
/// server (the URL's `options` set `search_path`, as the client tests'
/// `StorageBackend.freshSchemaURL` does). The same value restarts a server
/// on the same data.
///
/// The run is on PostgreSQL when `AXIOM_TEST_SERVER_BACKEND=postgres` and
/// `AXIOM_TEST_DATABASE_URL` names the server (`scripts/test.sh` runs the
/// server tests a second time so): every `ServerProcess` test then runs on
/// it without a second copy of its body. Tests about the SQLite file itself
/// (a read-only directory, a deleted file, rows edited with sqlite3) name
/// their file and are skipped on that pass (`sqliteOnly`).
struct ServerDatabase: Sendable {
    let arguments: [String]
    /// Why the schema could not be made (the server then is not started).
    let setupError: String?

    static var onPostgres: Bool {
        ProcessInfo.processInfo.environment["AXIOM_TEST_SERVER_BACKEND"] == "postgres" && baseURL != nil
    }

    /// The storage capability's name on this run's backend.
    static var storageName: String { onPostgres ? "PostgresStorage" : "SQLiteStorage" }

    /// For tests that are about SQLite's file: off on the PostgreSQL pass.
    static var sqliteOnly: Bool { !onPostgres }

    private static var baseURL: String? {
        ProcessInfo.processInfo.environment["AXIOM_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func sqlite(_ path: String) -> ServerDatabase {
        ServerDatabase(arguments: ["--database", path], setupError: nil)
    }

    /// A new, empty database of this run's backend (`directory` holds the
    /// SQLite file).
    static func fresh(in directory: URL) -> ServerDatabase {
        guard onPostgres, let base = baseURL else {
            return sqlite(directory.appendingPathComponent("axiom.db").path)
        }
        return postgresSchema(on: base)
    }

    /// A fresh database (`fresh(in:)`) in a temporary directory of its
    /// own, removed when `body` ends.
    static func withFresh<T>(_ body: (ServerDatabase) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-database-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(fresh(in: directory))
    }

    /// A new schema on the PostgreSQL server at `base`.
    static func postgresSchema(on base: String) -> ServerDatabase {
        let schema = "s_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let url = base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        return ServerDatabase(arguments: ["--database-url", url], setupError: execute("CREATE SCHEMA \(schema)", on: base))
    }

    /// Runs `sql` on a connection of its own (libpq, blocking: test set-up
    /// only); the server's error message, or nil.
    static func execute(_ sql: String, on url: String) -> String? {
        guard let connection = PQconnectdb(url) else { return "PQconnectdb returned nil" }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK else { return String(cString: PQerrorMessage(connection)) }
        guard let result = PQexec(connection, sql) else { return String(cString: PQerrorMessage(connection)) }
        defer { PQclear(result) }
        return PQresultStatus(result) == PGRES_COMMAND_OK ? nil : String(cString: PQresultErrorMessage(result))
    }
}

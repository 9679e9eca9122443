import Axiom
import Capabilities
import Foundation

/// The storage backends a test runs on: SQLite always, PostgreSQL when
/// `AXIOM_TEST_DATABASE_URL` names a server (`.ci/run` starts one with
/// `scripts/postgres.sh start`; locally, export its output to run them).
///
///     @Test(arguments: StorageBackend.all)
///     func …(backend: StorageBackend) async throws {
///         let storage = try await backend.open(migrations: …)
public enum StorageBackend: String, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    /// The server the PostgreSQL runs use, or nil to skip them.
    public static var databaseURL: String? {
        ProcessInfo.processInfo.environment["AXIOM_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// SQLite, plus PostgreSQL when it is configured.
    public static var all: [StorageBackend] { databaseURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    public var description: String { rawValue }

    /// A fresh, empty database on this backend with `migrations` applied:
    /// a file in a new temp directory, or a new schema on the test server.
    public func open(migrations: [Migration] = []) async throws -> OpenedStorage {
        switch self {
        case .sqlite:
            let directory = try TempDirectory()
            let storage = try await SQLiteStorage.open(
                StorageConfiguration(path: directory.path("test.sqlite")), migrations: migrations)
            return OpenedStorage(storage: storage, keepAlive: directory)
        case .postgres:
            let url = try await Self.freshSchemaURL()
            let storage = try await PostgresStorage.open(PostgresConfiguration(url: url), migrations: migrations)
            return OpenedStorage(storage: storage, keepAlive: url)
        }
    }

    /// Where a test's database lives: `path` itself on SQLite, a URL of a
    /// fresh schema on PostgreSQL (the same value reopens the same data).
    public func database(at path: String) async throws -> String {
        switch self {
        case .sqlite: path
        case .postgres: try await Self.freshSchemaURL()
        }
    }

    /// Registers this backend's storage capability on `orchestrator`, opened
    /// on `database` (a SQLite path, its directory made if missing, or a
    /// PostgreSQL URL) with `migrations`; returns its type, for the clients'
    /// dependencies.
    public func register(on orchestrator: AxiomOrchestrator, database: String, readerCount: Int = 1,
                         migrations: [Migration]) async throws -> any Capability.Type {
        switch self {
        case .sqlite:
            let configuration = StorageConfiguration(path: database, readerCount: readerCount, createDirectory: true)
            try await orchestrator.registerCapability(SQLiteStorage.self) {
                try await SQLiteStorage.open(configuration, migrations: migrations)
            }
            return SQLiteStorage.self
        case .postgres:
            let configuration = PostgresConfiguration(url: database, readerCount: readerCount)
            try await orchestrator.registerCapability(PostgresStorage.self) {
                try await PostgresStorage.open(configuration, migrations: migrations)
            }
            return PostgresStorage.self
        }
    }

    /// The storage a ported client gets from the orchestrator's resolver:
    /// the handle of this backend's capability.
    public func access(_ resolver: CapabilityResolver) throws -> StorageAccess {
        switch self {
        case .sqlite: StorageAccess(try resolver.handle(SQLiteStorage.self))
        case .postgres: StorageAccess(try resolver.handle(PostgresStorage.self))
        }
    }

    /// A URL whose connections use a new, empty schema of the test server
    /// (libpq's `options` parameter sets `search_path`), so tests never see
    /// each other's tables. The schemas go with the throwaway cluster.
    public static func freshSchemaURL() async throws -> String {
        guard let base = databaseURL else { throw StorageError.invalidMigrations("AXIOM_TEST_DATABASE_URL is unset") }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try await PostgresStorage.open(PostgresConfiguration(url: base, readerCount: 1))
        try await admin.writeTransaction { try $0.executeScript("CREATE SCHEMA \(schema)") }
        await admin.close()
        return base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
    }
}

/// A storage opened for one test, with what must live as long as it (the
/// temp directory of a SQLite file).
public struct OpenedStorage: Sendable {
    public let storage: any StorageCapability
    let keepAlive: any Sendable
}

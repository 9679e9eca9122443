import AxiomTestSupport
import Dispatch
import Foundation
import Testing
@testable import Capabilities

enum Fixture {
    static let migrations: [Migration] = [
        Migration(version: 1, name: "create users", sql: """
            CREATE TABLE users (
                id      TEXT PRIMARY KEY,
                email   TEXT NOT NULL UNIQUE COLLATE NOCASE,
                name    TEXT NOT NULL,
                balance INTEGER NOT NULL DEFAULT 0,
                score   REAL,
                avatar  BLOB
            ) STRICT;
            """),
        Migration(version: 2, name: "create notes", sql: """
            CREATE TABLE notes (
                id      INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id),
                body    TEXT NOT NULL
            ) STRICT;
            CREATE INDEX notes_by_user ON notes(user_id);
            """),
    ]

    static func configuration(_ directory: TempDirectory, file: String = "test.db") -> StorageConfiguration {
        StorageConfiguration(path: directory.path(file), readerCount: 2)
    }

    static func open(_ directory: TempDirectory, file: String = "test.db") async throws -> SQLiteStorage {
        try await SQLiteStorage.open(configuration(directory, file: file), migrations: migrations)
    }

    /// `open`, with `configure`'s changes to the configuration.
    static func open(_ directory: TempDirectory,
                     configure: (inout StorageConfiguration) -> Void) async throws -> SQLiteStorage {
        var configuration = configuration(directory)
        configure(&configuration)
        return try await SQLiteStorage.open(configuration, migrations: migrations)
    }

    @discardableResult
    static func insertUser(_ storage: SQLiteStorage, id: String, email: String? = nil) async throws -> Int {
        try await storage.write { db in
            try db.execute("INSERT INTO users(id, email, name) VALUES(?, ?, ?)", id, email ?? "\(id)@example.com", "User \(id)")
        }
    }

    static func userCount(_ storage: SQLiteStorage) async throws -> Int64 {
        try await storage.read { db in try db.queryOne("SELECT count(*) FROM users")?.get(0) ?? -1 }
    }
}

struct ExpectedFailure: Error, Equatable {
    let tag: Int
}

/// The writer queue parked inside a block of the test's, so that write
/// requests pile up (deterministic batch composition).
final class WriterHold: Sendable {
    fileprivate let parked = DispatchSemaphore(value: 0)
    fileprivate let release = DispatchSemaphore(value: 0)
}

extension SQLiteStorage {
    /// Parks the writer queue and returns once it is parked. Suspending the
    /// queue is not enough: a drain already running (the one that just
    /// committed the test's setup write) keeps taking requests until the
    /// queue is empty, so the first requests could form a batch of their own.
    func holdWriter() -> WriterHold {
        let hold = WriterHold()
        writer.requests.writerQueue.async {
            hold.parked.signal()
            hold.release.wait()
        }
        hold.parked.wait()
        return hold
    }

    /// Waits until `count` requests are queued (bounded: after about 30 s
    /// it lets go anyway and the test's expectations report the shortfall),
    /// then lets the writer drain them.
    func releaseWriter(_ hold: WriterHold, afterQueued count: Int) async {
        for _ in 0..<30_000 where writer.requests.pendingCount < count {
            try? await Task.sleep(for: .milliseconds(1))
        }
        hold.release.signal()
    }
}

/// `Result(catching:)` for async bodies.
func capture<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

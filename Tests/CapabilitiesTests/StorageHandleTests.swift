import AxiomTestSupport
import Foundation
import Testing
@testable import Capabilities

/// The `StorageHandle` contract, the same on both backends: what store
/// code written against `any StorageHandle` may rely on.
@Suite struct StorageHandleTests {
    static let migrations = [
        Migration(version: 1, name: "items", sql: """
            CREATE TABLE items (
                id    TEXT PRIMARY KEY,
                count INTEGER NOT NULL,
                ratio REAL,
                data  BLOB,
                note  TEXT
            ) STRICT;
            """, postgresSQL: """
            CREATE TABLE items (
                id    TEXT PRIMARY KEY,
                count BIGINT NOT NULL,
                ratio DOUBLE PRECISION,
                data  BYTEA,
                note  TEXT
            );
            """),
    ]

    @Test(arguments: StorageBackend.all)
    func valuesRoundTripThroughBoundParameters(backend: StorageBackend) async throws {
        let opened = try await backend.open(migrations: Self.migrations)
        let storage = opened.storage
        let bytes: [UInt8] = [0, 1, 2, 0xFF, 0x27, 0x5C]
        let tricky = "it's a '?' -- not a placeholder; DROP TABLE items"
        let changed = try await storage.writeTransaction { handle in
            try handle.execute("INSERT INTO items(id, count, ratio, data, note) VALUES(?, ?, ?, ?, ?)",
                               arguments: ["a", .integer(Int64.max), .real(0.1), .blob(bytes), .text(tricky)])
                + handle.execute("INSERT INTO items(id, count, ratio, data, note) VALUES('b?', ?, NULL, NULL, NULL)",
                                 arguments: [.integer(-7)])
        }
        #expect(changed == 2)
        let row = try #require(try await storage.readTransaction { try $0.queryOne("SELECT * FROM items WHERE id = ?", "a") })
        #expect(try row.get("count", as: Int64.self) == Int64.max)
        #expect(try row.get("ratio", as: Double.self) == 0.1)
        #expect(try row.get("data", as: [UInt8].self) == bytes)
        #expect(try row.get("note", as: String.self) == tricky)
        let other = try #require(try await storage.readTransaction { try $0.queryOne("SELECT * FROM items WHERE id = 'b?'") })
        #expect(try other.get("count", as: Int64.self) == -7)
        #expect(try other.get("note", as: String?.self) == nil)
        // SUM over an integer column reads as an integer on both (numeric on PostgreSQL).
        let sum = try await storage.readTransaction { try $0.queryOne("SELECT SUM(count) AS total FROM items WHERE id = ?", "b?") }
        #expect(try sum?.get("total", as: Int64.self) == -7)
        let updated = try await storage.writeTransaction { try $0.execute("UPDATE items SET count = count - 1") }
        #expect(updated == 2)
        await storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func uniqueViolationFailsOnlyItsOwnRequest(backend: StorageBackend) async throws {
        let opened = try await backend.open(migrations: Self.migrations)
        let storage = opened.storage
        try await storage.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('dup', 1)") }
        let results = await withTaskGroup(of: Result<Int, any Error>.self) { group in
            for i in 0..<20 {
                group.addTask {
                    do {
                        return .success(try await storage.writeTransaction { handle in
                            try handle.execute("INSERT INTO items(id, count) VALUES(?, ?)",
                                               i == 7 ? "dup" : "item-\(i)", i)
                        })
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let failures = results.compactMap { result -> StorageError? in
            if case .failure(let error) = result { return error as? StorageError }
            return nil
        }
        #expect(failures.count == 1)
        #expect(failures.first?.isUniqueViolation == true)
        let count = try await storage.readTransaction { try $0.queryOne("SELECT COUNT(*) AS n FROM items") }
        #expect(try count?.get("n", as: Int64.self) == 20)
        await storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func throwingClosureLeavesNothingBehind(backend: StorageBackend) async throws {
        struct Refused: Error {}
        let opened = try await backend.open(migrations: Self.migrations)
        let storage = opened.storage
        await #expect(throws: Refused.self) {
            try await storage.writeTransaction { handle in
                try handle.execute("INSERT INTO items(id, count) VALUES('half', 1)")
                throw Refused()
            }
        }
        let row = try await storage.readTransaction { try $0.queryOne("SELECT id FROM items WHERE id = 'half'") }
        #expect(row == nil)
        await storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func transactionControlIsRefused(backend: StorageBackend) async throws {
        let opened = try await backend.open(migrations: Self.migrations)
        let storage = opened.storage
        await #expect(throws: StorageError.self) {
            try await storage.writeTransaction { try $0.execute("COMMIT") }
        }
        // The writer still works afterwards.
        try await storage.writeTransaction { try $0.execute("INSERT INTO items(id, count) VALUES('after', 1)") }
        await storage.close()
    }

    @Test(arguments: StorageBackend.all)
    func handleKeptPastItsClosureIsRefused(backend: StorageBackend) async throws {
        final class Box: @unchecked Sendable { var handle: (any StorageHandle)? }
        let opened = try await backend.open(migrations: Self.migrations)
        let storage = opened.storage
        let box = Box()
        try await storage.readTransaction { box.handle = $0 }
        #expect(throws: StorageError.self) { try box.handle?.query("SELECT 1 AS one") }
        await storage.close()
    }
}

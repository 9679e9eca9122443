import AxiomTestSupport
import Foundation
import Testing
@testable import Capabilities

/// The readers read the database through one memory mapping per file
/// (`CSQLiteSharedMap`): however many readers, the file is mapped once, and
/// rows written after the mapping was made (the file grown under it) read
/// back exactly.
@Suite struct SharedMapTests {
    /// The mappings of `path` in this process, from /proc/self/maps.
    static func mappings(of path: String) throws -> Int {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
            .split(separator: "\n").filter { $0.hasSuffix(" " + resolved) }.count
    }

    static func names(_ storage: SQLiteStorage) async throws -> [String] {
        try await storage.read { db in try db.query("SELECT name FROM users ORDER BY id").map { try $0.get(0) } }
    }

    static func insert(_ storage: SQLiteStorage, _ range: Range<Int>) async throws {
        try await storage.write { db in
            for i in range {
                // Long names, so that the rows span many pages.
                try db.execute("INSERT INTO users(id, email, name) VALUES(?, ?, ?)",
                               String(format: "u%06d", i), "u\(i)@example.com", String(repeating: "n\(i) ", count: 40))
            }
        }
    }

    static func expected(_ range: Range<Int>) -> [String] { range.map { String(repeating: "n\($0) ", count: 40) } }

    @Test func readersShareOneMappingAndSeeTheFileGrowUnderIt() async throws {
        let directory = try TempDirectory()
        let path = directory.path("mapped.db")
        let first = try await SQLiteStorage.open(StorageConfiguration(path: path, readerCount: 3),
                                                 migrations: Fixture.migrations)
        var storage = first
        try await Self.insert(storage, 0..<2_000)
        // Reads on every reader at once, each through its own connection.
        try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<6 { group.addTask { try await Self.names(first) } }
            for try await names in group { #expect(names == Self.expected(0..<2_000)) }
        }
        let limit: Int64? = try await storage.read { db in try db.queryOne("PRAGMA mmap_size")?.get(0) }
        #expect(limit == Int64(storage.configuration.readerMapSize))
        #expect(try Self.mappings(of: path) == 1)

        try await Self.insert(storage, 2_000..<5_000)
        #expect(try await Self.names(storage) == Self.expected(0..<5_000))

        // Closing checkpoints the WAL into the file; the new readers read
        // every page from the grown file, through a new mapping.
        storage = try await storage.reopen()
        #expect(try await Self.names(storage) == Self.expected(0..<5_000))
        try await Self.insert(storage, 5_000..<6_000)
        #expect(try await Self.names(storage) == Self.expected(0..<6_000))
        #expect(try Self.mappings(of: path) == 1)
        await storage.close()
        #expect(try Self.mappings(of: path) == 0)
    }

    @Test func aReaderMapSizeOfZeroCopiesPagesAsBefore() async throws {
        let directory = try TempDirectory()
        let storage = try await SQLiteStorage.open(
            StorageConfiguration(path: directory.path("copied.db"), readerCount: 2, readerMapSize: 0),
            migrations: Fixture.migrations)
        try await Self.insert(storage, 0..<500)
        let limit: Int64? = try await storage.read { db in try db.queryOne("PRAGMA mmap_size")?.get(0) }
        #expect(limit == 0)
        #expect(try await Self.names(storage) == Self.expected(0..<500))
        await storage.close()
    }
}

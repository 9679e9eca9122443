import AxiomTestSupport
import Foundation
import Testing
@testable import Capabilities

/// Storage failures made deterministic without root-sensitive tricks (tests
/// may run as root, where chmod does not stop writes): the data directory is
/// renamed or removed under an open instance, the database is opened where no
/// directory exists, and a page quota (`max_page_count`) produces SQLITE_FULL
/// exactly as a full disk does.
@Suite struct AvailabilityTests {
    @Test func openingWhereNoDirectoryExistsIsUnavailable() async throws {
        let directory = try TempDirectory()
        let error = await #expect(throws: StorageError.self) {
            try await SQLiteStorage.open(
                StorageConfiguration(path: directory.path("missing/sub/x.db")), migrations: Fixture.migrations)
        }
        #expect(error?.isUnavailable == true)
        #expect(error?.sqliteError?.code == 14) // SQLITE_CANTOPEN

        // With createDirectory the composition root can make the first start work.
        let storage = try await SQLiteStorage.open(
            StorageConfiguration(path: directory.path("missing/sub/x.db"), createDirectory: true), migrations: Fixture.migrations)
        try await Fixture.insertUser(storage, id: "first")
        #expect(try await Fixture.userCount(storage) == 1)
        await storage.close()
    }

    @Test func movedDirectoryMakesWritesUnavailableUntilItIsBack() async throws {
        let root = try TempDirectory()
        let dataDirectory = root.url.appendingPathComponent("data")
        let movedDirectory = root.url.appendingPathComponent("data.moved")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: false)
        let configuration = StorageConfiguration(path: dataDirectory.appendingPathComponent("app.db").path)
        let storage = try await SQLiteStorage.open(configuration, migrations: Fixture.migrations)
        try await Fixture.insertUser(storage, id: "before")
        #expect(storage.isAvailable)

        try FileManager.default.moveItem(at: dataDirectory, to: movedDirectory)
        let error = await #expect(throws: StorageError.self) { try await Fixture.insertUser(storage, id: "lost") }
        #expect(error?.isUnavailable == true)
        #expect(storage.isAvailable == false)
        #expect(storage.unavailableReason?.contains("removed, moved or replaced") == true)
        // Every later write is refused at once, without touching the disk.
        let again = await #expect(throws: StorageError.self) { try await Fixture.insertUser(storage, id: "lost2") }
        #expect(again?.isUnavailable == true)
        #expect(storage.metrics.writesRejectedUnavailable == 2)
        #expect(await storage.checkAvailability() == false)
        // Reads report it too: SQLite notices the moved WAL (SQLITE_IOERR_FSTAT).
        let readError = await #expect(throws: StorageError.self) { try await Fixture.userCount(storage) }
        #expect(readError?.isUnavailable == true)
        // Re-creating fails while the directory is gone (no silent empty database).
        let reopenError = await #expect(throws: StorageError.self) {
            try await SQLiteStorage.open(configuration, migrations: Fixture.migrations)
        }
        #expect(reopenError?.isUnavailable == true)
        #expect(!FileManager.default.fileExists(atPath: dataDirectory.path))

        // Storage is back: the probe succeeds and the same instance works again.
        try FileManager.default.moveItem(at: movedDirectory, to: dataDirectory)
        #expect(await storage.checkAvailability())
        #expect(storage.isAvailable)
        try await Fixture.insertUser(storage, id: "after")
        #expect(try await Fixture.userCount(storage) == 2)

        // A re-created instance sees exactly the acknowledged writes.
        let fresh = try await storage.reopen()
        let ids = try await fresh.read { db in try db.query("SELECT id FROM users ORDER BY id").map { try $0.get(0, as: String.self) } }
        #expect(ids == ["after", "before"])
        #expect(fresh.isAvailable)
        await fresh.close()
        // reopen() closed the old instance.
        let closed = await #expect(throws: StorageError.self) { try await Fixture.insertUser(storage, id: "old") }
        guard case .closed? = closed else {
            Issue.record("expected closed, got \(String(describing: closed))")
            return
        }
    }

    @Test func removedDirectoryIsUnavailableAndAFreshInstanceRecovers() async throws {
        let root = try TempDirectory()
        let dataDirectory = root.url.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: false)
        let configuration = StorageConfiguration(path: dataDirectory.appendingPathComponent("app.db").path)
        let storage = try await SQLiteStorage.open(configuration, migrations: Fixture.migrations)
        try await Fixture.insertUser(storage, id: "gone-with-the-disk")

        try FileManager.default.removeItem(at: dataDirectory)
        let error = await #expect(throws: StorageError.self) { try await Fixture.insertUser(storage, id: "x") }
        #expect(error?.isUnavailable == true)
        #expect(!storage.isAvailable)
        #expect(await storage.checkAvailability() == false)
        await #expect(throws: StorageError.self) { try await storage.reopen() }

        // The operator restores an (empty) directory: the owner's retry succeeds.
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: false)
        // The old instance must not come back: its file is not the one at the path.
        #expect(await storage.checkAvailability() == false)
        let fresh = try await storage.reopen()
        #expect(fresh.isAvailable)
        #expect(try await fresh.appliedMigrations().map(\.version) == [1, 2])
        try await Fixture.insertUser(fresh, id: "new")
        #expect(try await Fixture.userCount(fresh) == 1)
        await fresh.close()
    }

    @Test func diskFullMakesWritesUnavailableWithoutLosingAcknowledgedOnes() async throws {
        let directory = try TempDirectory()
        var configuration = Fixture.configuration(directory)
        let setup = try await SQLiteStorage.open(configuration, migrations: Fixture.migrations)
        let pages = try await setup.read { db in try db.queryOne("PRAGMA page_count")?.get(0, as: Int.self) } ?? 0
        await setup.close()
        configuration.maxPageCount = pages + 4 // a "disk" with room for a few pages

        let storage = try await SQLiteStorage.open(configuration, migrations: Fixture.migrations)
        var acknowledged: [String] = []
        var failure: StorageError?
        for i in 0..<100 where failure == nil {
            let id = "big-\(i)"
            do {
                try await storage.write { db in
                    try db.execute("INSERT INTO users(id, email, name, avatar) VALUES(?, ?, 'B', ?)",
                                   id, "\(id)@x", [UInt8](repeating: UInt8(i), count: 3000))
                }
                acknowledged.append(id)
            } catch let error as StorageError {
                failure = error
            }
        }
        #expect(failure?.isUnavailable == true)
        #expect(failure?.sqliteError?.code == 13) // SQLITE_FULL
        #expect(!acknowledged.isEmpty)
        #expect(!storage.isAvailable)
        let refused = await #expect(throws: StorageError.self) { try await Fixture.insertUser(storage, id: "tiny") }
        #expect(refused?.isUnavailable == true)
        await storage.close()

        // Space is back (no quota): a fresh instance has every acknowledged row and takes writes.
        configuration.maxPageCount = nil
        let fresh = try await SQLiteStorage.open(configuration, migrations: Fixture.migrations)
        let ids = try await fresh.read { db in
            try db.query("SELECT id FROM users ORDER BY rowid").map { try $0.get(0, as: String.self) }
        }
        #expect(ids == acknowledged)
        try await Fixture.insertUser(fresh, id: "tiny")
        #expect(await fresh.checkAvailability())
        await fresh.close()
    }

    @Test func swallowedStorageFailureStillFailsTheWrite() async throws {
        let directory = try TempDirectory()
        var configuration = Fixture.configuration(directory)
        let setup = try await SQLiteStorage.open(configuration, migrations: Fixture.migrations)
        let pages = try await setup.read { db in try db.queryOne("PRAGMA page_count")?.get(0, as: Int.self) } ?? 0
        await setup.close()
        configuration.maxPageCount = pages + 4

        let storage = try await SQLiteStorage.open(configuration, migrations: Fixture.migrations)
        try await Fixture.insertUser(storage, id: "kept")
        // The closure catches SQLITE_FULL and reports success: the storage
        // layer must not acknowledge a transaction that hit a full disk.
        let error = await #expect(throws: StorageError.self) {
            try await storage.write { db -> Int in
                var inserted = 0
                for i in 0..<100 {
                    do {
                        try db.execute("INSERT INTO users(id, email, name, avatar) VALUES(?, ?, 'B', ?)",
                                       "big-\(i)", "big-\(i)@x", [UInt8](repeating: 7, count: 3000))
                        inserted += 1
                    } catch {
                        break
                    }
                }
                return inserted
            }
        }
        #expect(error?.isUnavailable == true)
        #expect(!storage.isAvailable)
        await storage.close()
        configuration.maxPageCount = nil
        let fresh = try await SQLiteStorage.open(configuration, migrations: Fixture.migrations)
        let ids = try await fresh.read { db in try db.query("SELECT id FROM users").map { try $0.get(0, as: String.self) } }
        #expect(ids == ["kept"])
        await fresh.close()
    }

    @Test func healthyStorageProbesAvailable() async throws {
        let directory = try TempDirectory()
        let storage = try await Fixture.open(directory)
        #expect(await storage.checkAvailability())
        #expect(await storage.checkAvailability())
        let probes = try await storage.read { db in
            try db.queryOne("SELECT probe_count FROM storage_probe WHERE id = 1")?.get(0, as: Int64.self)
        }
        #expect(probes == 2)
        await storage.close()
    }
}

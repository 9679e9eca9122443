import AxiomTestSupport
import Dispatch
import Testing
@testable import Capabilities

/// `SQLiteStorage.readNow`: a read on the caller's thread when a reader is
/// idle, nil at once when none is, and the pool's hand-off intact around it.
@Suite struct ReadNowTests {
    private static func openOneReader(_ directory: TempDirectory) async throws -> SQLiteStorage {
        try await SQLiteStorage.open(StorageConfiguration(path: directory.path("now.db"), readerCount: 1),
                                     migrations: Fixture.migrations)
    }

    /// A read holding the only reader until `release` is signalled; it
    /// answers the number of users. Returns once the read is inside.
    private static func holdTheOnlyReader(_ storage: SQLiteStorage) async -> (busy: Task<Int, any Error>, release: DispatchSemaphore) {
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let busy = Task {
            try await storage.read { db in
                entered.signal()
                release.wait()
                return try db.query("SELECT id FROM users").count
            }
        }
        // Waited for off the cooperative pool, which the busy read's task needs.
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                entered.wait()
                continuation.resume()
            }
        }
        return (busy, release)
    }

    @Test func readsCommittedDataOnTheCallersThread() async throws {
        let directory = try TempDirectory()
        let storage = try await Self.openOneReader(directory)
        try await Fixture.insertUser(storage, id: "a")
        let count: Int64?? = try storage.readNow { db in try db.queryOne("SELECT count(*) FROM users")?.get(0) }
        #expect(count == .some(.some(1)))
        try await Fixture.insertUser(storage, id: "b")
        #expect(try storage.readNow { db in try db.query("SELECT id FROM users").count } == 2)
        // Statement errors come out as thrown errors and leave the reader usable.
        #expect(throws: StorageError.self) { _ = try storage.readNow { db in try db.query("SELECT nope FROM users") } }
        #expect(try storage.readNow { db in try db.query("SELECT id FROM users").count } == 2)
        await storage.close()
    }

    @Test func declinesWhileEveryReaderIsBusyAndHandsOffToWaitersAfter() async throws {
        let directory = try TempDirectory()
        let storage = try await Self.openOneReader(directory)
        try await Fixture.insertUser(storage, id: "a")
        let (busy, release) = await Self.holdTheOnlyReader(storage)
        #expect(try storage.readNow { _ in 1 } == nil)
        release.signal()
        #expect(try await busy.value == 1)
        // A read submitted while readNow holds the only reader waits for it
        // and is then served on the reader's queue.
        // (The busy read's caller may resume a moment before its reader is
        // marked idle again: retry, boundedly.)
        var waiter: Task<Int, any Error>?
        var now: Int?
        for _ in 0 ..< 10_000 where now == nil {
            now = try storage.readNow { db -> Int in
                waiter = Task { try await storage.read { db in try db.query("SELECT id FROM users").count } }
                return try db.query("SELECT id FROM users").count
            }
            if now == nil { await Task.yield() }
        }
        #expect(now == 1)
        #expect(try await waiter?.value == 1)
        await storage.close()
        #expect(try storage.readNow { _ in 1 } == nil)
    }

    /// `StorageAccess.boundedRead`: on the caller's thread while a reader is
    /// idle, and handed to the reader's queue (answered once it frees up)
    /// while none is, with the same answer either way.
    @Test func boundedReadAnswersWhetherOrNotAReaderIsIdle() async throws {
        let directory = try TempDirectory()
        let storage = try await Self.openOneReader(directory)
        let access = StorageAccess(try await standaloneHandle(storage))
        try await Fixture.insertUser(storage, id: "a")
        let countUsers: @Sendable (any StorageHandle) throws -> Int = { try $0.query("SELECT id FROM users").count }
        #expect(try await access.boundedRead(countUsers) == 1)

        let (busy, release) = await Self.holdTheOnlyReader(storage)
        try await Fixture.insertUser(storage, id: "b")
        // The only reader is busy: readNow declines, so boundedRead queues.
        let queued = Task { try await access.boundedRead(countUsers) }
        for _ in 0 ..< 100_000 where storage.readerUsage.waiting == 0 { await Task.yield() }
        #expect(storage.readerUsage.waiting == 1)
        release.signal()
        // Both see "b": a read's snapshot begins at its first statement.
        #expect(try await busy.value == 2)
        #expect(try await queued.value == 2)
        await storage.close()
    }
}

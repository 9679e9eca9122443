import Axiom
import Synchronization
import Testing

/// The clients' one caching contract without storage: rows arrive late and
/// out of order here by construction. A full set keeps a key read from
/// storage on its second read only, so a read meant to evict is made twice
/// (`keptFill`).
@Suite("VersionedWorkingSet: versions, late rows, single-flight misses, representations")
struct VersionedWorkingSetTests {
    typealias Cache = VersionedWorkingSet<Int, String>

    private func row(_ key: Int, _ value: String, version: Int64) -> Versioned<Int, String> {
        Versioned(key, value, version: version)
    }

    private func keptFill(_ set: Cache, _ row: Versioned<Int, String>) {
        _ = set.fill([row], startedAt: set.start(of: row.key))
        _ = set.fill([row], startedAt: set.start(of: row.key))
    }

    @Test("a late read of a key whose newer commit was evicted is returned but not kept")
    func lateReadAfterEviction() {
        let set = Cache(name: "t", capacity: 1)
        let readStarted = set.start(of: 1)
        #expect(set.applyCommitted([row(1, "a2", version: 2)], startedAt: set.start(of: 1)).count == 1)
        keptFill(set, row(2, "b1", version: 1))  // evicts 1's commit
        #expect(set.lookup(1) == nil)
        #expect(set.fill([row(1, "a1", version: 1)], startedAt: readStarted).map(\.value) == ["a1"])
        #expect(set.lookup(1) == nil)
        keptFill(set, row(1, "a2", version: 2))
        #expect(set.lookup(1) == "a2")
    }

    @Test("a late commit never replaces a newer held version, and is not to be published")
    func lateCommit() {
        let set = Cache(name: "t", capacity: 4)
        let started = set.start()
        #expect(set.applyCommitted([row(1, "v3", version: 3)], startedAt: started).count == 1)
        #expect(set.applyCommitted([row(1, "v2", version: 2)], startedAt: started).isEmpty)
        #expect(set.fill([row(1, "v1", version: 1)], startedAt: started).map(\.value) == ["v3"])
        #expect(set.lookup(1) == "v3")
    }

    @Test("a read that began before a key was forgotten is answered but not kept; one that began after is kept")
    func forgottenWhileReading() {
        let set = Cache(name: "t", capacity: 4_096)
        let keys = Array(0..<64)
        #expect(set.applyCommitted(keys.map { row($0, "w\($0)", version: 2) }, startedAt: set.start()).count == 64)
        let readStarted = set.start()
        set.forget(0)  // another replica changed it
        #expect(set.fill([row(0, "old", version: 1)], startedAt: readStarted).map(\.value) == ["old"])
        #expect(set.lookup(0) == nil)
        #expect(set.fill([row(0, "new", version: 3)], startedAt: set.start(of: 0)).map(\.value) == ["new"])
        #expect(set.lookup(0) == "new")
        #expect(keys.dropFirst().allSatisfy { set.lookup($0) == "w\($0)" })
        set.forget { $0.hasPrefix("w") }
        #expect(set.count == 1)
        set.forgetAll()
        #expect(set.count == 0)
    }

    @Test("the bound holds over every shard, and a full set keeps a key on its second read only")
    func boundAndAdmission() {
        let set = Cache(name: "t", capacity: 4_096)
        for key in 0..<6_000 { _ = set.fill([row(key, "v", version: 1)], startedAt: set.start(of: key)) }
        #expect(set.count <= 4_096 && set.count > 3_000)
        #expect(set.usage.capacity == 4_096 && set.usage.entries == set.count)
        let small = Cache(name: "t", capacity: 100)
        for key in 0..<100 { _ = small.fill([row(key, "held", version: 1)], startedAt: small.start()) }
        for key in 1_000..<2_000 { _ = small.fill([row(key, "crawl", version: 1)], startedAt: small.start()) }
        // A Bloom filter's false positive may let a crawled key in (about 3
        // of the 1,000 are expected to; 20 or more is under one in a billion).
        let survivors = (0..<100).filter { small.lookup($0) == "held" }.count
        #expect(survivors >= 80, "\(survivors) of 100 survived the crawl")
    }

    @Test("concurrent misses of one key share one read, and its error")
    func singleFlight() async throws {
        let set = Cache(name: "t", capacity: 16)
        let reads = ReadCount()
        let gate = AsyncGate()
        let values = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await set.value(7) { key in
                        reads.value.add(1, ordering: .relaxed)
                        await gate.wait()
                        return Versioned(key, "seven", version: 1)
                    }
                }
            }
            // Every caller has missed before the first read can finish:
            // without a shared read each would make its own.
            while set.usage.misses < 20 { await Task.yield() }
            await gate.open()
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(values == Array(repeating: "seven", count: 20))
        #expect(reads.value.load(ordering: .relaxed) == 1)
        #expect(set.lookup(7) == "seven")

        struct Away: Error {}
        let failing = Cache(name: "t", capacity: 16)
        let failingGate = AsyncGate()
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await failing.value(1) { _ in
                            await failingGate.wait()
                            throw Away()
                        }
                        return false
                    } catch { return error is Away }
                }
            }
            while failing.usage.misses < 5 { await Task.yield() }
            await failingGate.open()
            #expect(await group.allSatisfy { $0 })
        }
        #expect(failing.lookup(1) == nil)
        #expect(try await failing.value(1) { Versioned($0, "back", version: 1) } == "back")
    }

    @Test("a miss after a forget reads on its own instead of joining a read that began before the forget",
          .timeLimit(.minutes(1)))
    func noJoiningAReadOlderThanAForget() async throws {
        let set = Cache(name: "t", capacity: 16)
        let gate = AsyncGate()
        let reading = ReadCount()
        let old = Task {
            try await set.value(3) { key in
                reading.value.add(1, ordering: .relaxed)
                await gate.wait()
                return Versioned(key, "before", version: 1)
            }
        }
        while reading.value.load(ordering: .relaxed) < 1 { await Task.yield() }
        set.forget(3)  // the row changed while the first read was in flight
        let fresh = try await set.value(3) { Versioned($0, "after", version: 2) }
        #expect(fresh == "after")
        await gate.open()
        // The late read is answered with the newest row known by then.
        #expect(try await old.value == "after")
        #expect(set.lookup(3) == "after")
    }

    @Test("a representation is made once per held version and goes with the version it was made from")
    func representations() async throws {
        let set = Cache(name: "t", capacity: 16)
        let made = Mutex<[String]>([])
        func page(_ value: String) -> String {
            made.withLock { $0.append(value) }
            return "<\(value)>"
        }
        _ = set.applyCommitted([row(1, "a", version: 1)], startedAt: set.start())
        let all: (String) -> Bool = { _ in true }
        let read: @Sendable (Int) async throws -> Versioned<Int, String>? = { _ in nil }
        // A value the caller's rule turns away, held or read, is answered nil and not represented.
        #expect(try await set.represented(1, readingMiss: read, as: page, where: { $0 != "a" }) == nil)
        #expect(made.withLock { $0 }.isEmpty)
        #expect(try await set.represented(1, readingMiss: read, as: page, where: all) == "<a>")
        #expect(try await set.represented(1, readingMiss: read, as: page, where: all) == "<a>")
        #expect(made.withLock { $0 } == ["a"])
        _ = set.applyCommitted([row(1, "b", version: 2)], startedAt: set.start())
        #expect(try await set.represented(1, readingMiss: read, as: page, where: all) == "<b>")
        #expect(made.withLock { $0 } == ["a", "b"])
        set.forget(1)
        #expect(try await set.represented(1, readingMiss: read, as: page, where: all) == nil)
        // A miss read now is represented, and the representation kept with it.
        let stored: @Sendable (Int) async throws -> Versioned<Int, String>? = { Versioned($0, "c", version: 3) }
        #expect(try await set.represented(1, readingMiss: stored, as: page, where: { $0 != "c" }) == nil)
        #expect(try await set.represented(1, readingMiss: stored, as: page, where: all) == "<c>")
        #expect(try await set.represented(1, readingMiss: read, as: page, where: all) == "<c>")
        #expect(made.withLock { $0 } == ["a", "b", "c"])
    }
}

private final class ReadCount: Sendable {
    let value = Atomic<Int>(0)
}

/// Holds tasks until opened.
private actor AsyncGate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

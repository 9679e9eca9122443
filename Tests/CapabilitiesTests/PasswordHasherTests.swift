import Foundation
import Synchronization
import Testing
@testable import Capabilities

@Suite struct PasswordHasherTests {
    @Test func hashesVerifyTheRightPasswordOnly() async throws {
        let hasher = try PasswordHasher(parameters: .minimum)
        let hash = try await hasher.hash("correct horse battery staple")
        #expect(hash.hasPrefix("$argon2id$v=19$"))
        #expect(try await hasher.verify("correct horse battery staple", against: hash))
        #expect(try await hasher.verify("correct horse battery stapl", against: hash) == false)
        #expect(try await hasher.verify("", against: hash) == false)
        #expect(try await hasher.verify("correct horse battery staple", against: "not a hash") == false)
        // A fresh salt every time.
        let again = try await hasher.hash("correct horse battery staple")
        #expect(again != hash)
        #expect(try await hasher.verify("correct horse battery staple", against: again))
        #expect(hasher.statistics.hashes == 2 && hasher.statistics.verifications == 5)
    }

    @Test func unicodeAndEmptyPasswordsAreHashedAsBytes() async throws {
        let hasher = try PasswordHasher(parameters: .minimum)
        let hash = try await hasher.hash("pässwörd ✓ 🔑")
        #expect(try await hasher.verify("pässwörd ✓ 🔑", against: hash))
        #expect(try await hasher.verify("passwörd ✓ 🔑", against: hash) == false)
        let empty = try await hasher.hash("")
        #expect(try await hasher.verify("", against: empty))
        #expect(try await hasher.verify(" ", against: empty) == false)
    }

    @Test func interactiveDefaultsAreArgon2idInteractive() async throws {
        let hasher = try PasswordHasher()
        #expect(hasher.parameters == .interactive)
        #expect(hasher.parameters.opsLimit == 2 && hasher.parameters.memLimit == 64 << 20)
        #expect(hasher.maxConcurrent == ProcessInfo.processInfo.activeProcessorCount)
        let hash = try await hasher.hash("a long enough password")
        #expect(hash.hasPrefix("$argon2id$v=19$m=65536,t=2,p=1$"))
        #expect(try await hasher.verify("a long enough password", against: hash))
        #expect(hasher.needsRehash(hash) == false)
        // A hash made with other costs still verifies, and is flagged for rehash.
        let cheap = try await PasswordHasher(parameters: .minimum).hash("a long enough password")
        #expect(try await hasher.verify("a long enough password", against: cheap))
        #expect(hasher.needsRehash(cheap))
    }

    @Test func refusesOverlongPasswordsAndBadParameters() async throws {
        let hasher = try PasswordHasher(parameters: .minimum)
        let long = String(repeating: "x", count: PasswordHasher.maxPasswordBytes + 1)
        await #expect(throws: SecurityError.passwordTooLong(maxBytes: PasswordHasher.maxPasswordBytes)) {
            try await hasher.hash(long)
        }
        #expect(try await hasher.verify(long, against: try await hasher.hash("short")) == false)
        #expect(throws: SecurityError.self) { try PasswordHasher(parameters: .init(opsLimit: 0, memLimit: 1 << 20)) }
        #expect(throws: SecurityError.self) { try PasswordHasher(parameters: .init(opsLimit: 1, memLimit: 1)) }
        #expect(throws: SecurityError.self) { try PasswordHasher(parameters: .minimum, maxConcurrent: 0) }
    }

    @Test(arguments: [1, ProcessInfo.processInfo.activeProcessorCount])
    func neverRunsMoreHashesThanAllowed(limit: Int) async throws {
        // Costs large enough (4 MiB) that operations overlap when allowed to.
        let hasher = try PasswordHasher(parameters: .init(opsLimit: 1, memLimit: 4 << 20), maxConcurrent: limit)
        let jobs = limit * 6
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<jobs {
                group.addTask {
                    let password = "password number \(i)"
                    let hash = try await hasher.hash(password)
                    return try await hasher.verify(password, against: hash)
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: jobs))
        let stats = hasher.statistics
        #expect(stats.peakConcurrent >= 1 && stats.peakConcurrent <= limit)
        #expect(stats.hashes == jobs && stats.verifications == jobs)
        #expect(stats.running == 0 && hasher.waiting == 0)
    }

    /// Before: waiters queued without bound.
    @Test func limiterTurnsAwayAcquiresBeyondItsWaitingBound() async throws {
        let limiter = AsyncLimiter(limit: 1, maxWaiting: 1)
        #expect(await limiter.acquire())
        let waiter = Task { await limiter.acquire() }
        while limiter.waiting < 1 { await Task.yield() }
        #expect(await limiter.acquire() == false)
        limiter.release()
        #expect(await waiter.value)
        limiter.release()
        #expect(await limiter.acquire())
    }

    @Test func aHasherWithAFullQueueRefusesBusyAndHashesNothing() async throws {
        let hasher = try PasswordHasher(parameters: .init(opsLimit: 3, memLimit: 32 << 20), maxConcurrent: 1, maxWaiting: 0)
        let running = Task { try await hasher.hash("the one that runs") }
        while hasher.statistics.running < 1 { await Task.yield() }
        await #expect(throws: SecurityError.busy) { try await hasher.hash("one too many") }
        await #expect(throws: SecurityError.busy) { _ = try await hasher.verify("one too many", against: "x") }
        _ = try await running.value
        #expect(hasher.statistics.hashes == 1 && hasher.statistics.verifications == 0)
    }

    @Test func limiterQueuesWaitersInOrderBeyondItsLimit() async throws {
        let limiter = AsyncLimiter(limit: 2)
        await limiter.acquire()
        await limiter.acquire()
        let order = OrderLog()
        let third = Task { await limiter.acquire(); order.append(3) }
        while limiter.waiting < 1 { await Task.yield() }
        let fourth = Task { await limiter.acquire(); order.append(4) }
        while limiter.waiting < 2 { await Task.yield() }
        #expect(order.entries.isEmpty) // both wait while the two slots are held
        limiter.release()
        await third.value
        #expect(order.entries == [3])
        #expect(limiter.waiting == 1)
        limiter.release()
        await fourth.value
        #expect(order.entries == [3, 4])
        limiter.release()
        limiter.release()
        #expect(limiter.waiting == 0)
        // Both slots are free again: two acquires return at once.
        await limiter.acquire()
        await limiter.acquire()
    }
}

/// A thread-safe append-only log for ordering assertions.
final class OrderLog: Sendable {
    private let storage = Mutex<[Int]>([])
    func append(_ value: Int) { storage.withLock { $0.append(value) } }
    var entries: [Int] { storage.withLock { $0 } }
}

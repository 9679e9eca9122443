import AxiomTestSupport
import Foundation
import Testing
import Capabilities

/// The `rate_buckets` table on both backends: a lease cut from a bucket
/// refilled by the database's clock, tokens given back, and two storage
/// instances on one database (two processes) leasing from one bucket at
/// once without ever granting a token twice.
@Suite(.serialized) struct SharedRateBucketsTests {
    /// 1 token per 1000 s: nothing refills during a test.
    static let slow = 0.001

    static func exchange(_ storage: StorageAccess, _ key: String, want: Int = 0, returning: Int = 0,
                         policy: String = "per-address", rate: Double = slow,
                         capacity: Int = 100) async throws -> SharedRateBuckets.Grant? {
        try await storage.durableWrite { handle in
            try SharedRateBuckets.exchange(handle, policy: policy, rate: rate, capacity: capacity,
                                           [SharedRateBuckets.Request(key: key, want: want, returning: returning)])
        }[key]
    }

    @Test(arguments: StorageBackend.all)
    func aLeaseIsCutFromAFullBucketAndUnspentTokensGoBack(backend: StorageBackend) async throws {
        let replica = try await Replica.fresh(backend, migrations: [])
        defer { Task { await replica.stop() } }
        let first = try #require(try await Self.exchange(replica.storage, "10.0.0.1", want: 10))
        #expect(first.granted == 10)
        #expect(Int(first.bucketLeft) == 90)
        let back = try #require(try await Self.exchange(replica.storage, "10.0.0.1", returning: 5))
        #expect(back.granted == 0)
        #expect(Int(back.bucketLeft) == 95)
        // More than is left: the whole tokens there are, no more.
        let rest = try #require(try await Self.exchange(replica.storage, "10.0.0.1", want: 500))
        #expect(rest.granted == 95)
        #expect(rest.bucketLeft < 1)
        #expect(try #require(try await Self.exchange(replica.storage, "10.0.0.1", want: 1)).granted == 0)
        // Given back to a full bucket: not owed, never above the capacity.
        let other = try #require(try await Self.exchange(replica.storage, "10.0.0.2", returning: 7))
        #expect(Int(other.bucketLeft) == 100)
        #expect(try #require(try await Self.exchange(replica.storage, "10.0.0.2", want: 150)).granted == 100)
    }

    @Test(arguments: StorageBackend.all)
    func twoProcessesLeasingAtOnceNeverGrantATokenTwice(backend: StorageBackend) async throws {
        let (a, b) = try await Replica.pair(backend, migrations: [])
        defer { Task { await a.stop(); await b.stop() } }
        let granted = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                let storage = index % 2 == 0 ? a.storage : b.storage
                group.addTask {
                    // Batches of several keys, in different orders, as two processes' exchanges are.
                    let keys = index % 4 < 2 ? ["k", "x\(index)", "y"] : ["y", "x\(index)", "k"]
                    let grants = try await storage.durableWrite { handle in
                        try SharedRateBuckets.exchange(handle, policy: "per-user", rate: Self.slow, capacity: 100,
                                                       keys.map { SharedRateBuckets.Request(key: $0, want: 7, returning: 0) })
                    }
                    return grants["k"]?.granted ?? 0
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(granted == 100)
    }

    @Test(arguments: StorageBackend.all)
    func refilledBucketsArePrunedOthersKept(backend: StorageBackend) async throws {
        let replica = try await Replica.fresh(backend, migrations: [])
        defer { Task { await replica.stop() } }
        // 10 tokens at 1000 a second: full again 10 ms after the lease.
        _ = try await Self.exchange(replica.storage, "fast", want: 5, policy: "per-user", rate: 1000, capacity: 10)
        _ = try await Self.exchange(replica.storage, "slow", want: 5)
        try await Task.sleep(for: .milliseconds(50))
        let pruned = try await replica.storage.durableWrite { handle in
            try SharedRateBuckets.prune(handle, policy: "per-user", rate: 1000, capacity: 10)
                + SharedRateBuckets.prune(handle, policy: "per-address", rate: Self.slow, capacity: 100)
        }
        #expect(pruned == 1)
        let left = try await replica.storage.storedRead { handle in
            try handle.query("SELECT key FROM rate_buckets").map { try $0.get("key") as String }
        }
        #expect(left == ["slow"])
    }
}

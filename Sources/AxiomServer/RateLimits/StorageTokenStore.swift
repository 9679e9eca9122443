import Capabilities
import HTTPServer

/// The shared rate-limit buckets on the service's storage: the server's
/// `SharedTokenStore` seam, implemented with the storage capability's
/// `rate_buckets` table. Each exchange is one write of the storage's
/// group commit, so a lease costs no transaction of its own.
struct StorageTokenStore: SharedTokenStore {
    let storage: StorageAccess

    func exchange(_ policy: RateLimitPolicy, _ requests: [SharedTokenRequest]) async throws -> [String: SharedTokenGrant] {
        let asked = requests.map { SharedRateBuckets.Request(key: $0.key, want: $0.want, returning: $0.returning) }
        let (name, rate, capacity) = (policy.name, policy.requestsPerSecond, policy.burst)
        var grants: [String: SharedTokenGrant] = [:]
        var start = 0
        while start < asked.count {
            let batch = Array(asked[start..<min(asked.count, start + SharedRateBuckets.maxBatch)])
            let granted = try await storage.durableWrite { handle in
                try SharedRateBuckets.exchange(handle, policy: name, rate: rate, capacity: capacity, batch)
            }
            for (key, grant) in granted {
                grants[key] = SharedTokenGrant(granted: grant.granted, bucketLeft: grant.bucketLeft)
            }
            start += SharedRateBuckets.maxBatch
        }
        return grants
    }

    func prune(_ policy: RateLimitPolicy) async throws {
        let (name, rate, capacity) = (policy.name, policy.requestsPerSecond, policy.burst)
        _ = try await storage.durableWrite { handle in
            try SharedRateBuckets.prune(handle, policy: name, rate: rate, capacity: capacity)
        }
    }
}

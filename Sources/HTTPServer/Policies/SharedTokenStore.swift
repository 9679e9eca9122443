/// Token buckets several processes share (one database), so a rate limit
/// counts across them: the seam ``ClusterTokens`` leases through. The
/// server knows no storage; the composition root implements this on it.
public protocol SharedTokenStore: Sendable {
    /// For each request (keys distinct), gives back its `returning` tokens
    /// to `policy`'s bucket for the key, then takes up to `want` whole
    /// tokens from it, atomically against every other process. Answers
    /// what each bucket granted and kept; throws when the store cannot
    /// answer (the limiter then counts on its own).
    func exchange(_ policy: RateLimitPolicy, _ requests: [SharedTokenRequest]) async throws -> [String: SharedTokenGrant]

    /// Forgets `policy`'s buckets that have refilled (a new one starts full).
    func prune(_ policy: RateLimitPolicy) async throws
}

public struct SharedTokenRequest: Sendable, Hashable {
    public let key: String
    public let want: Int
    public let returning: Int

    public init(key: String, want: Int, returning: Int) {
        self.key = key
        self.want = want
        self.returning = returning
    }
}

public struct SharedTokenGrant: Sendable, Hashable {
    public let granted: Int
    /// The shared bucket's tokens after the grant.
    public let bucketLeft: Double

    public init(granted: Int, bucketLeft: Double) {
        self.granted = granted
        self.bucketLeft = bucketLeft
    }
}

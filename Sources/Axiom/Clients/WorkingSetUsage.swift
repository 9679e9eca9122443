/// One working set's fill and lookups at a moment: what `/metrics` reports
/// per set (`axiom_working_set_entries`, `axiom_working_set_lookups_total`),
/// so an operator can see whether a bound such as `catalog_cache_entries`
/// holds what the traffic reads (a low hit ratio with the set full says
/// the bound is small for it; a miss is one indexed read from storage).
public struct WorkingSetUsage: Sendable, Equatable {
    /// The set's name in metrics: `products`, `users`, `carts`, …
    public let name: String
    public let entries: Int
    public let capacity: Int
    public let hits: UInt64
    public let misses: UInt64

    public init(name: String, entries: Int, capacity: Int, hits: UInt64, misses: UInt64) {
        self.name = name
        self.entries = entries
        self.capacity = capacity
        self.hits = hits
        self.misses = misses
    }

    /// One set kept in shards (`LockShards`), reported as the whole; its
    /// capacity the shards' together unless the owner states its bound.
    public init(name: String, summing parts: [WorkingSetUsage], capacity: Int? = nil) {
        self.init(name: name, entries: parts.reduce(0) { $0 + $1.entries },
                  capacity: capacity ?? parts.reduce(0) { $0 + $1.capacity },
                  hits: parts.reduce(0) { $0 + $1.hits }, misses: parts.reduce(0) { $0 + $1.misses })
    }
}

/// A client that keeps working sets reports them here; the orchestrator
/// gathers them from every created client (`workingSetUsage()`). Async
/// because an actor's sets are its isolated state.
public protocol WorkingSetReporting: Sendable {
    var workingSets: [WorkingSetUsage] { get async }
}

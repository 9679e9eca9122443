import Synchronization

/// Counts of what the connection limits did, for metrics: an operator can
/// tell an attack being turned away from a quiet server.
public final class ConnectionStatistics: Sendable {
    public struct Snapshot: Sendable, Equatable {
        public let refusedOverCapacity: Int
        public let refusedOverAddressLimit: Int
        public let refusedOverBodyBudget: Int
        public let reclaimed: Int
    }

    let refusedOverCapacity = Atomic<Int>(0)
    let refusedOverAddressLimit = Atomic<Int>(0)
    let refusedOverBodyBudget = Atomic<Int>(0)
    let reclaimed = Atomic<Int>(0)

    var snapshot: Snapshot {
        Snapshot(refusedOverCapacity: refusedOverCapacity.load(ordering: .relaxed),
                 refusedOverAddressLimit: refusedOverAddressLimit.load(ordering: .relaxed),
                 refusedOverBodyBudget: refusedOverBodyBudget.load(ordering: .relaxed),
                 reclaimed: reclaimed.load(ordering: .relaxed))
    }
}

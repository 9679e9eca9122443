/// One component as the runtime knows it: what it is, what it depends on,
/// how long it lives, and how many instances it has had.
public struct ComponentDescriptor: Sendable, Codable, Equatable {
    public let kind: ComponentKind
    /// Fully qualified type name (`Module.Type`).
    public let type: String
    /// Type names of the components this one depends on: the declared ones
    /// and those observed at run time (clients resolved by a context,
    /// downstream contexts created by it).
    public internal(set) var dependencies: [String]
    /// For a context type: the context types it may make downstream (its
    /// `downstreamTypes`, RFC-001 4.2 rule 2).
    public internal(set) var downstream: [String]
    public let lifetime: ComponentLifetime
    /// For an owned state: the type names of the clients that own it
    /// (exactly one when constraint 2.7 holds).
    public internal(set) var owners: [String]
    /// Instances made so far.
    public internal(set) var instancesCreated: Int
    /// Instances alive now (for contexts: registered in the DAG).
    public internal(set) var instancesLive: Int

    public init(kind: ComponentKind, type: String, dependencies: [String] = [], downstream: [String] = [],
                lifetime: ComponentLifetime, owners: [String] = [], instancesCreated: Int = 0, instancesLive: Int = 0) {
        self.kind = kind
        self.type = type
        self.dependencies = Array(Set(dependencies)).sorted()
        self.downstream = Array(Set(downstream)).sorted()
        self.lifetime = lifetime
        self.owners = owners
        self.instancesCreated = instancesCreated
        self.instancesLive = instancesLive
    }
}

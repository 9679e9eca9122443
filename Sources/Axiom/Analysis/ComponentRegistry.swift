import Synchronization

/// Every component of the application with its kind, type, dependencies and
/// lifetime (RFC-001 constraint 8 of the introspection list: components are
/// discoverable and monitorable). Fed by the orchestrator as it registers and
/// creates things; read by ``ConstraintValidator``.
public final class ComponentRegistry: Sendable {
    private struct Table {
        var byType: [String: ComponentDescriptor] = [:]
        var order: [String] = []
        var factoryViolations: [String] = []
        var contextsFromFactory = 0
    }

    private let table = Mutex(Table())

    init() {}

    /// Adds a component, or merges a second registration of the same type
    /// (its dependencies and owners are added, so a conflict stays visible to
    /// the validator instead of being overwritten).
    public func register(_ descriptor: ComponentDescriptor) {
        table.withLock { table in
            if var existing = table.byType[descriptor.type] {
                if descriptor.dependencies.isEmpty, descriptor.owners.isEmpty, descriptor.downstream.isEmpty { return }
                existing.dependencies = Array(Set(existing.dependencies + descriptor.dependencies)).sorted()
                existing.downstream = Array(Set(existing.downstream + descriptor.downstream)).sorted()
                existing.owners += descriptor.owners
                table.byType[descriptor.type] = existing
            } else {
                table.byType[descriptor.type] = descriptor
                table.order.append(descriptor.type)
            }
        }
    }

    public var descriptors: [ComponentDescriptor] {
        table.withLock { table in table.order.compactMap { table.byType[$0] } }
    }

    public func descriptor(of type: String) -> ComponentDescriptor? {
        table.withLock { $0.byType[type] }
    }

    /// Attempts to make a context other than through the factory.
    public var factoryViolations: [String] { table.withLock { $0.factoryViolations } }

    /// Contexts the factory created (each with a claimed token).
    public var contextsCreatedByFactory: Int { table.withLock { $0.contextsFromFactory } }

    func recordDependency(from component: String, to dependency: String) {
        table.withLock { Self.add(dependency, to: component, in: &$0) }
    }

    /// Dependencies of a component, all under one lock.
    func recordDependencies(from component: String, to dependencies: [String]) {
        table.withLock { table in
            for dependency in dependencies { Self.add(dependency, to: component, in: &table) }
        }
    }

    func recordInstance(of type: String) {
        table.withLock { table in
            table.byType[type]?.instancesCreated += 1
            table.byType[type]?.instancesLive = 1
        }
    }

    /// A context the factory made, with the clients its `init` resolved and
    /// the context it was made for (nil for a root): one lock per context
    /// made, not one per client and one per edge.
    func recordContextCreated(_ type: String, clients: [String], upstream: String?) {
        table.withLock { table in
            table.contextsFromFactory += 1
            if let index = table.byType.index(forKey: type) {
                table.byType.values[index].instancesCreated += 1
                table.byType.values[index].instancesLive += 1
            }
            for client in clients { Self.add(client, to: type, in: &table) }
            if let upstream { Self.add(type, to: upstream, in: &table) }
        }
    }

    func recordContextReleased(_ type: String) {
        table.withLock { table in
            table.byType[type]?.instancesLive -= 1
        }
    }

    func recordFactoryViolation(_ problem: String) {
        table.withLock { $0.factoryViolations.append(problem) }
    }

    /// Adds `dependency` to a registered component's sorted dependencies;
    /// looks before it copies, since nearly every call finds it there.
    private static func add(_ dependency: String, to component: String, in table: inout Table) {
        guard let index = table.byType.index(forKey: component),
              !table.byType.values[index].dependencies.contains(dependency) else { return }
        table.byType.values[index].dependencies.append(dependency)
        table.byType.values[index].dependencies.sort()
    }
}

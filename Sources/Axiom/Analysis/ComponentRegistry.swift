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
        table.withLock { table in
            guard var descriptor = table.byType[component], !descriptor.dependencies.contains(dependency) else { return }
            descriptor.dependencies = (descriptor.dependencies + [dependency]).sorted()
            table.byType[component] = descriptor
        }
    }

    func recordInstance(of type: String) {
        table.withLock { table in
            table.byType[type]?.instancesCreated += 1
            table.byType[type]?.instancesLive = 1
        }
    }

    func recordContextCreated(_ type: String) {
        table.withLock { table in
            table.contextsFromFactory += 1
            table.byType[type]?.instancesCreated += 1
            table.byType[type]?.instancesLive += 1
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
}

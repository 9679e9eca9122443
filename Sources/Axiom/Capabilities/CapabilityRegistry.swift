import Synchronization

/// Capabilities by type (RFC-001 section 8), owned by the orchestrator.
///
/// Unlike the RFC's sketch, resolving a missing capability throws instead of
/// calling `fatalError`: a server reports and refuses, it does not trap.
/// Every capability is registered with a factory, so it can be re-created
/// when it becomes unavailable (transient, constraint 2.14).
public final class CapabilityRegistry: Sendable {
    private struct Table {
        var slots: [ObjectIdentifier: any AnyCapabilitySlot] = [:]
        var order: [ObjectIdentifier] = []
    }

    private let table = Mutex(Table())
    private let components: ComponentRegistry

    init(components: ComponentRegistry) {
        self.components = components
    }

    /// Makes the first instance with `factory` (which may be asynchronous,
    /// like opening a database) and keeps `factory` for re-creation.
    /// Registering a type twice is refused.
    public func register<T: Capability>(_ type: T.Type = T.self,
                                        factory: @escaping @Sendable () async throws -> T) async throws {
        let key = ObjectIdentifier(type)
        let name = String(reflecting: type)
        if table.withLock({ $0.slots[key] != nil }) { throw AxiomError.capabilityAlreadyRegistered(name) }
        let slot = try await CapabilitySlot(factory: factory)
        try table.withLock { table in
            if table.slots[key] != nil { throw AxiomError.capabilityAlreadyRegistered(name) }
            table.slots[key] = slot
            table.order.append(key)
        }
        components.register(ComponentDescriptor(kind: .capability, type: name, lifetime: .transient))
        components.recordInstance(of: name)
    }

    /// The instance in place now.
    public func resolve<T: Capability>(_ type: T.Type) throws -> T {
        try slot(type).instance
    }

    /// A handle that always yields the instance in place at the time of use.
    public func handle<T: Capability>(_ type: T.Type) throws -> CapabilityHandle<T> {
        CapabilityHandle(slot: try slot(type))
    }

    /// Replaces the instance of `type` with a new one from its factory.
    @discardableResult
    public func recreate<T: Capability>(_ type: T.Type) async throws -> T {
        let fresh = try await slot(type).recreate(replacing: nil)
        components.recordInstance(of: String(reflecting: type))
        return fresh
    }

    /// Each capability's cached availability flag, in registration order
    /// (cheap: no probing), for readiness checks and metrics.
    public var availability: [(capability: String, isAvailable: Bool)] {
        let slots = table.withLock { table in table.order.compactMap { table.slots[$0] } }
        return slots.map { ($0.typeName, $0.anyInstance.isAvailable) }
    }

    /// Probes every capability; re-creates each one that reports itself
    /// unavailable and probes the new instance. Clients holding handles use
    /// the new instances from then on.
    public func recoverUnavailable() async -> [CapabilityRecovery] {
        let slots = table.withLock { table in table.order.compactMap { table.slots[$0] } }
        var outcomes: [CapabilityRecovery] = []
        for slot in slots {
            let instance = slot.anyInstance
            if await instance.checkAvailability() {
                outcomes.append(CapabilityRecovery(capability: slot.typeName, wasAvailable: true, recreated: false,
                                                   isAvailable: true, generation: slot.generation, error: nil))
                continue
            }
            do {
                let fresh = try await slot.recreateAny(replacing: ObjectIdentifier(instance))
                components.recordInstance(of: slot.typeName)
                let available = await fresh.checkAvailability()
                outcomes.append(CapabilityRecovery(capability: slot.typeName, wasAvailable: false, recreated: true,
                                                   isAvailable: available, generation: slot.generation, error: nil))
            } catch {
                outcomes.append(CapabilityRecovery(capability: slot.typeName, wasAvailable: false, recreated: false,
                                                   isAvailable: false, generation: slot.generation,
                                                   error: String(describing: error)))
            }
        }
        return outcomes
    }

    private func slot<T: Capability>(_ type: T.Type) throws -> CapabilitySlot<T> {
        let slot = table.withLock { $0.slots[ObjectIdentifier(type)] }
        guard let typed = slot as? CapabilitySlot<T> else {
            throw AxiomError.capabilityNotRegistered(String(reflecting: type))
        }
        return typed
    }
}

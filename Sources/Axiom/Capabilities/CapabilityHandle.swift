/// How a client holds a capability. Capabilities are transient (2.14): the
/// registry may replace the instance at any time, so a client keeps this
/// handle, not the instance, and reads `current` at the moment of use.
public struct CapabilityHandle<T: Capability>: Sendable {
    let slot: CapabilitySlot<T>

    /// The instance in place now.
    public var current: T { slot.instance }

    /// How many instances this capability has had (1 until re-created).
    public var generation: Int { slot.generation }

    /// The instance in place now, or ``AxiomError/capabilityUnavailable(_:)``
    /// if its cached flag says it is unavailable.
    public func available() throws -> T {
        let instance = slot.instance
        guard instance.isAvailable else { throw AxiomError.capabilityUnavailable(slot.typeName) }
        return instance
    }
}

extension CapabilityHandle {
    /// A handle on `instance` outside any registry. The orchestrator is one
    /// per process, so a test that plays two replicas gives the second its
    /// own storage this way.
    @_spi(Testing)
    public static func fixed(_ instance: T) async throws -> CapabilityHandle<T> {
        CapabilityHandle(slot: try await CapabilitySlot(factory: { instance }))
    }
}

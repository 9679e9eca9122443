import Synchronization

/// The registry's place for one capability type: the current instance, the
/// factory that re-creates it, and how many instances it has had.
final class CapabilitySlot<T: Capability>: AnyCapabilitySlot {
    private struct Current {
        var instance: T
        var generation: Int
    }

    let typeName: String
    private let factory: @Sendable () async throws -> T
    private let current: Mutex<Current>

    /// Makes the first instance with `factory` (opening a database, say).
    init(factory: @escaping @Sendable () async throws -> T) async throws {
        self.typeName = String(reflecting: T.self)
        self.factory = factory
        self.current = Mutex(Current(instance: try await factory(), generation: 1))
    }

    var instance: T { current.withLock { $0.instance } }

    var generation: Int { current.withLock { $0.generation } }

    var anyInstance: any Capability { instance }

    /// Makes a new instance unless `stale` was already replaced by another
    /// caller; returns the instance in place afterwards.
    @discardableResult
    func recreate(replacing stale: ObjectIdentifier?) async throws -> T {
        if let stale {
            let existing = instance
            if ObjectIdentifier(existing) != stale { return existing }
        }
        let fresh = try await factory()
        return current.withLock { current in
            if let stale, ObjectIdentifier(current.instance) != stale { return current.instance }
            current.instance = fresh
            current.generation += 1
            return fresh
        }
    }

    func recreateAny(replacing stale: ObjectIdentifier?) async throws -> any Capability {
        try await recreate(replacing: stale)
    }
}

/// Type-erased view of a ``CapabilitySlot`` for the registry's tables.
protocol AnyCapabilitySlot: AnyObject, Sendable {
    var typeName: String { get }
    var generation: Int { get }
    var anyInstance: any Capability { get }
    func recreateAny(replacing stale: ObjectIdentifier?) async throws -> any Capability
}

import Synchronization

/// The context types already described to the component registry, with
/// their names, by type identity.
///
/// A context type's descriptor (its name and the names of its
/// `downstreamTypes`) cannot change while the process runs, so each type
/// is described once, on first sight, and named from this table rather
/// than re-registered and named with `String(reflecting:)` for every
/// context made.
final class ContextTypeCatalog: Sendable {
    private let names = Mutex<[ObjectIdentifier: String]>([:])
    private let components: ComponentRegistry

    init(components: ComponentRegistry) {
        self.components = components
    }

    /// The fully qualified name of `type`. On first sight, registers a
    /// descriptor of it and of every type it may make downstream, and
    /// theirs, so the component graph lists every context type before any
    /// instance exists. The whole walk runs under the lock, so a type found
    /// here has all of its downstream types registered too.
    @discardableResult
    func name(of type: any Context.Type) -> String {
        let key = ObjectIdentifier(type)
        return names.withLock { names in
            if let known = names[key] { return known }
            var work: [any Context.Type] = [type]
            while let next = work.popLast() {
                let nextKey = ObjectIdentifier(next)
                guard names[nextKey] == nil else { continue }
                let name = String(reflecting: next)
                names[nextKey] = name
                let downstream = next.downstreamTypes
                components.register(ComponentDescriptor(kind: .context, type: name,
                                                        downstream: downstream.map { String(reflecting: $0) },
                                                        lifetime: .perUsage))
                work += downstream
            }
            return names[key]!
        }
    }
}

/// What a client factory receives: capabilities, and nothing else. It has no
/// way to reach another client or a context (constraints 2.1 and 2.6), and
/// it resolves only the capabilities the client declared; any other is
/// refused with ``AxiomError/undeclaredDependency(component:dependency:)``.
public struct CapabilityResolver: Sendable {
    let component: String
    let declared: Set<ObjectIdentifier>
    let registry: CapabilityRegistry

    public func handle<T: Capability>(_ type: T.Type) throws -> CapabilityHandle<T> {
        guard declared.contains(ObjectIdentifier(type)) else {
            throw AxiomError.undeclaredDependency(component: component, dependency: String(reflecting: type))
        }
        return try registry.handle(type)
    }
}

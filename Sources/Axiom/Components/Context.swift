/// RFC-001 1.6: feature coordination, one instance per usage (on this
/// server: per HTTP session). Depends on clients and downstream contexts only
/// (2.2); contexts form a DAG (2.8) and are created only by the orchestrator
/// (2.9).
///
/// The RFC marks contexts `@MainActor` because an iOS view updates on the UI
/// thread. A server has no UI thread, and one main actor would serialise every
/// session of the process. A context that holds mutable state of its own is
/// an actor; one that only coordinates clients is an immutable final class,
/// called without a hop or a lock.
///
/// The only initialiser is `init(_:)` taking a ``ContextCreation``, which no
/// code outside the Axiom module can make: the orchestrator's
/// `createContext(_:parent:)` is the one way to obtain a context.
public protocol Context: AnyObject, Sendable {
    /// The context types this one may make downstream (RFC-001 4.2 rule 2:
    /// upstream contexts declare their downstream dependencies). The factory
    /// refuses any other type, and `GET /axiom/components` lists them.
    static var downstreamTypes: [any Context.Type] { get }

    /// Store `try creation.claimIdentity()` and resolve clients with
    /// `try creation.client(_:)`; the token is void once `init` returns.
    init(_ creation: ContextCreation) throws

    /// Identity assigned by the orchestrator, with access to the registry.
    nonisolated var identity: ContextIdentity { get }

    /// Lifecycle. `onAppear` runs after the context is registered (the
    /// session's first use); `onDisappear` runs when the context is released
    /// (logout, idle expiry, eviction, shutdown) and must stop observations.
    func onAppear() async
    func onDisappear() async

    /// Observation of client state; stopped on release.
    func startObservation() async
    func stopObservation() async
}

extension Context {
    public static var downstreamTypes: [any Context.Type] { [] }

    public var contextID: ContextID { identity.id }

    public func onAppear() async { await startObservation() }
    public func onDisappear() async { await stopObservation() }
    public func startObservation() async {}
    public func stopObservation() async {}

    /// Contexts this one is a downstream dependency of (RFC section 3).
    public var upstreamContexts: [any Context] {
        identity.registry.upstreamContexts(of: identity.id)
    }

    /// Contexts this one depends on (RFC section 3).
    public var downstreamContexts: [any Context] {
        identity.registry.downstreamContexts(of: identity.id)
    }

    /// Creates a new downstream context through the orchestrator's factory.
    public func makeDownstream<T: Context>(_ type: T.Type) async throws -> T {
        guard let orchestrator = identity.orchestrator else { throw AxiomError.orchestratorShutDown }
        return try await orchestrator.createContext(type, parent: self)
    }

    /// The downstream context of type `T`, made on first use: this
    /// context's own, else one of that type already in the same graph
    /// (shared, RFC-001 4.2 rule 4, with the edge cycle-checked), else a new
    /// one from the factory. Once reached it is kept with this context's
    /// identity, so later requests of the session take no process-wide lock.
    public func downstream<T: Context>(_ type: T.Type) async throws -> T {
        if let reached = identity.reachedContext(type) { return reached }
        guard let orchestrator = identity.orchestrator else { throw AxiomError.orchestratorShutDown }
        let found = try await orchestrator.downstream(type, of: self)
        identity.noteReached(found)
        return found
    }
}

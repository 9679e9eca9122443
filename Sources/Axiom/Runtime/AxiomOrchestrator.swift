import Synchronization

/// The orchestrator of this process (RFC-001 sections 1.5 and 8.2).
///
/// Lifecycle: register capabilities, clients and presentations; `start()`
/// makes every client exactly once, activates it and validates the component
/// graph (refusing to start when a constraint fails); from then on
/// `createContext(_:parent:)` is the only context factory; `shutdown()`
/// releases every context, deactivates the clients and gives up the
/// process-wide singleton claim.
public final class AxiomOrchestrator: Orchestrator {
    private enum Phase { case registering, starting, running, failed, shutDown }

    private struct ClientEntry {
        let typeName: String
        let kind: ComponentKind
        let declared: Set<ObjectIdentifier>
        let factory: @Sendable (CapabilityResolver) throws -> any Client
        let metrics: ClientMetrics
        var instance: (any Client)?
    }

    private struct RuntimeState {
        var phase = Phase.registering
        var clients: [ObjectIdentifier: ClientEntry] = [:]
        var clientOrder: [ObjectIdentifier] = []
        var presentations: [String: String] = [:]
        /// What the composition root gave each context type (`compose`).
        var compositions: [ObjectIdentifier: any Sendable] = [:]
    }

    public let capabilityRegistry: CapabilityRegistry
    public let contextRegistry: ContextRegistry
    public let components: ComponentRegistry
    private let contextTypes: ContextTypeCatalog
    private let lease: OrchestratorLease
    private let runtime = Mutex(RuntimeState())
    private let nextContextID = Atomic<UInt64>(0)

    /// Claims the process-wide orchestrator singleton; throws
    /// ``AxiomError/orchestratorAlreadyRunning`` while another one lives.
    public init() throws {
        lease = try OrchestratorLease()
        components = ComponentRegistry()
        capabilityRegistry = CapabilityRegistry(components: components)
        contextRegistry = ContextRegistry()
        contextTypes = ContextTypeCatalog(components: components)
        components.register(ComponentDescriptor(kind: .orchestrator, type: String(reflecting: Self.self),
                                                lifetime: .singleton))
        components.recordInstance(of: String(reflecting: Self.self))
    }

    deinit {
        lease.release()
    }

    // MARK: Registration

    /// Registers a capability with the factory that makes (and re-makes) it.
    public func registerCapability<T: Capability>(_ type: T.Type = T.self,
                                                  factory: @escaping @Sendable () async throws -> T) async throws {
        try await capabilityRegistry.register(type, factory: factory)
    }

    /// Registers a stateful client and the state it owns. `factory` runs once,
    /// in `start()`, and may resolve only the declared capabilities.
    public func registerClient<C: StatefulClient>(_ type: C.Type, dependencies: [any Capability.Type],
                                                  factory: @escaping @Sendable (CapabilityResolver) throws -> C) throws {
        try addClient(type, kind: .statefulClient, dependencies: dependencies, factory: factory)
        components.register(ComponentDescriptor(kind: .ownedState, type: String(reflecting: C.State.self),
                                                lifetime: .singleton, owners: [String(reflecting: type)]))
    }

    /// Registers a stateless client.
    public func registerClient<C: StatelessClient>(_ type: C.Type, dependencies: [any Capability.Type],
                                                   factory: @escaping @Sendable (CapabilityResolver) throws -> C) throws {
        try addClient(type, kind: .statelessClient, dependencies: dependencies, factory: factory)
    }

    /// Declares a presentation (an HTTP route group) and the one context type
    /// it is bound to (constraint 2.4). A new presentation value serves each
    /// request (2.10); binding the same presentation to a second context is
    /// refused.
    public func registerPresentation<T: Context>(_ name: String, boundTo context: T.Type) throws {
        let contextName = String(reflecting: context)
        try runtime.withLock { runtime in
            if let bound = runtime.presentations[name], bound != contextName {
                throw AxiomError.presentationAlreadyBound(presentation: name, context: bound)
            }
            runtime.presentations[name] = contextName
        }
        // Lists the bound type, and what it may make, in the component graph
        // (only once the binding is accepted).
        contextTypes.name(of: context)
        components.register(ComponentDescriptor(kind: .presentation, type: name, dependencies: [contextName],
                                                lifetime: .perUsage))
    }

    /// Gives every context of type `T` the parts the composition root lists
    /// for it (the live-updates context's features, say), read in its
    /// `init` with `ContextCreation.composition(_:)`. So a context follows
    /// whatever features the process is composed of without naming them,
    /// and still is made only by this factory. Before `start()` only: a
    /// context type's parts are the same for its whole run.
    public func compose<T: Context, Parts: Sendable>(_ type: T.Type, with parts: Parts) throws {
        try runtime.withLock { runtime in
            guard runtime.phase == .registering else { throw AxiomError.orchestratorAlreadyStarted }
            runtime.compositions[ObjectIdentifier(type)] = parts
        }
    }

    /// The parts `compose` gave `contextType`, when they are a `Parts`.
    func composition<Parts>(of contextType: ObjectIdentifier, as _: Parts.Type) -> Parts? {
        runtime.withLock { $0.compositions[contextType] } as? Parts
    }

    private func addClient<C: Client>(_ type: C.Type, kind: ComponentKind, dependencies: [any Capability.Type],
                                      factory: @escaping @Sendable (CapabilityResolver) throws -> C) throws {
        let name = String(reflecting: type)
        let key = ObjectIdentifier(type)
        try runtime.withLock { runtime in
            guard runtime.phase == .registering else { throw AxiomError.orchestratorAlreadyStarted }
            guard runtime.clients[key] == nil else { throw AxiomError.clientAlreadyRegistered(name) }
            runtime.clients[key] = ClientEntry(typeName: name, kind: kind,
                                               declared: Set(dependencies.map { ObjectIdentifier($0) }),
                                               factory: { try factory($0) }, metrics: ClientMetrics(client: name))
            runtime.clientOrder.append(key)
        }
        components.register(ComponentDescriptor(kind: kind, type: name,
                                                dependencies: dependencies.map { String(reflecting: $0) },
                                                lifetime: .singleton))
    }

    // MARK: Start and shutdown

    /// Makes each client exactly once, activates it, and validates every
    /// run-time constraint. Throws (and stays unusable) when a client cannot
    /// be made or activated, or with ``AxiomError/constraintViolations(_:)``
    /// when validation fails: the server must not start then.
    public func start() async throws {
        let entries: [(ObjectIdentifier, ClientEntry)] = try runtime.withLock { runtime in
            guard runtime.phase == .registering else { throw AxiomError.orchestratorAlreadyStarted }
            runtime.phase = .starting
            return runtime.clientOrder.map { ($0, runtime.clients[$0]!) }
        }
        var made: [any Client] = []
        do {
            for (key, entry) in entries {
                let resolver = CapabilityResolver(component: entry.typeName, declared: entry.declared,
                                                  registry: capabilityRegistry)
                let client = try entry.factory(resolver)
                components.recordInstance(of: entry.typeName)
                runtime.withLock { $0.clients[key]?.instance = client }
                made.append(client)
            }
            for (client, (_, entry)) in zip(made, entries) {
                do {
                    try await client.activate()
                } catch {
                    throw AxiomError.clientActivationFailed(client: entry.typeName, reason: String(describing: error))
                }
            }
            runtime.withLock { $0.phase = .running }
            try validate().requirePassed()
        } catch {
            runtime.withLock { $0.phase = .failed }
            for client in made.reversed() { await client.deactivate() }
            throw error
        }
    }

    /// Releases every context, deactivates the clients (ending their update
    /// streams) and gives up the singleton claim. Safe to call twice.
    public func shutdown() async {
        let (wasRunning, clients): (Bool, [any Client]) = runtime.withLock { runtime in
            let wasRunning = runtime.phase == .running
            runtime.phase = .shutDown
            return (wasRunning, runtime.clientOrder.reversed().compactMap { runtime.clients[$0]?.instance })
        }
        for root in contextRegistry.rootContexts {
            await releaseContext(root.contextID)
        }
        if wasRunning {
            for client in clients { await client.deactivate() }
        }
        lease.release()
    }

    public var isRunning: Bool { runtime.withLock { $0.phase == .running } }

    // MARK: Contexts

    public var rootContexts: [any Context] { contextRegistry.rootContexts }

    /// The context factory (RFC-001 4.2.3): always a new instance, registered
    /// in the DAG under `parent`, whose type must declare `T` among its
    /// `downstreamTypes`.
    public func createContext<T: Context>(_ type: T.Type, parent: (any Context)?) async throws -> T {
        try requireRunning()
        if let parent { try requireDeclared(type, by: parent) }
        let made = try make(type, upstream: parent)
        do {
            try contextRegistry.insert(made.context, typeName: made.typeName, upstream: parent?.contextID)
        } catch {
            components.recordDependencies(from: made.typeName, to: made.clients)
            throw error
        }
        components.recordContextCreated(made.typeName, clients: made.clients, upstream: parent?.identity.typeName)
        await made.context.onAppear()
        return made.context
    }

    /// The downstream context of type `T` of `parent`, made on first use
    /// (see `Context.downstream(_:)`). Looked up and, when missing, made and
    /// inserted under one registry lock, so concurrent first uses in one
    /// session share one context. A caller that finds a context another
    /// request is still making may use it before its `onAppear` finished:
    /// contexts made this way start their observations on first use.
    public func downstream<T: Context>(_ type: T.Type, of parent: any Context) async throws -> T {
        try requireRunning()
        // A context already below `parent` was checked when it was made or
        // connected, so the hot path (every request of a session) checks
        // nothing and names no type.
        var clients: [String] = []
        let (found, origin): (any Context, ContextRegistry.DownstreamOrigin)
        do {
            (found, origin) = try contextRegistry.downstream(
                of: parent.contextID, typeKey: ObjectIdentifier(type),
                admit: { try requireDeclared(type, by: parent) },
                make: {
                    let made = try make(type, upstream: parent)
                    clients = made.clients
                    return (made.context, made.typeName)
                })
        } catch {
            if !clients.isEmpty { components.recordDependencies(from: contextTypes.name(of: type), to: clients) }
            throw error
        }
        guard let context = found as? T else { throw AxiomError.contextNotFound(found.contextID) }
        switch origin {
        case .existing:
            break
        case .shared:
            components.recordDependency(from: parent.identity.typeName, to: context.identity.typeName)
        case .created(let typeName):
            components.recordContextCreated(typeName, clients: clients, upstream: parent.identity.typeName)
            await context.onAppear()
        }
        return context
    }

    private func requireRunning() throws {
        try runtime.withLock { runtime in
            switch runtime.phase {
            case .running: return
            case .shutDown, .failed: throw AxiomError.orchestratorShutDown
            case .registering, .starting: throw AxiomError.orchestratorNotStarted
            }
        }
    }

    /// RFC-001 4.2 rule 2: an upstream context makes only the types it declares.
    private func requireDeclared<T: Context>(_ type: T.Type, by parent: any Context) throws {
        let parentType = Swift.type(of: parent)
        guard parentType.downstreamTypes.contains(where: { ObjectIdentifier($0) == ObjectIdentifier(type) }) else {
            throw AxiomError.undeclaredDownstream(upstream: parent.identity.typeName, downstream: String(reflecting: type))
        }
    }

    /// A new instance through a one-shot creation token (constraint 2.9),
    /// with the names of the clients its `init` resolved. The caller records
    /// them with the context once it is in the DAG; a context that fails to
    /// be made has them recorded here, as they were resolved all the same.
    private func make<T: Context>(_ type: T.Type,
                                  upstream: (any Context)?) throws -> (context: T, typeName: String, clients: [String]) {
        let typeName = contextTypes.name(of: type)
        let id = ContextID(rawValue: nextContextID.add(1, ordering: .relaxed).newValue)
        let creation = ContextCreation(contextID: id, typeName: typeName, contextType: ObjectIdentifier(type),
                                       upstream: upstream, orchestrator: self)
        let context: T
        do {
            context = try T(creation)
        } catch {
            components.recordDependencies(from: typeName, to: creation.seal().clients)
            throw error
        }
        let sealed = creation.seal()
        guard sealed.claimed, context.contextID == id else {
            components.recordDependencies(from: typeName, to: sealed.clients)
            let problem = "\(typeName) did not take the identity of its creation token"
            components.recordFactoryViolation(problem)
            throw AxiomError.contextCreationOutsideFactory(problem)
        }
        return (context, typeName, sealed.clients)
    }

    /// Adds an edge so that `downstream` is shared by another upstream
    /// context (RFC-001 4.2 rule 4). Refused if it would close a cycle.
    public func connect(upstream: any Context, downstream: any Context) throws {
        try contextRegistry.connect(upstream: upstream.contextID, downstream: downstream.contextID)
        components.recordDependency(from: upstream.identity.typeName, to: downstream.identity.typeName)
    }

    /// Releases a context, its edges, and every downstream context no other
    /// context still holds; each released context gets `onDisappear()`.
    public func releaseContext(_ id: ContextID) async {
        let removed = contextRegistry.release(id)
        for context in removed { context.identity.markReleased() }
        for context in removed {
            components.recordContextReleased(context.identity.typeName)
            await context.onDisappear()
        }
    }

    // MARK: Clients (reachable only through ContextCreation)

    func clientHandle<C: Client>(_ type: C.Type) throws -> ClientHandle<C> {
        let entry = runtime.withLock { runtime in
            runtime.clients[ObjectIdentifier(type)].map { (instance: $0.instance, metrics: $0.metrics) }
        }
        guard let entry else { throw AxiomError.clientNotRegistered(String(reflecting: type)) }
        guard let client = entry.instance as? C else { throw AxiomError.orchestratorNotStarted }
        return ClientHandle(client: client, metrics: entry.metrics)
    }

    // MARK: Analysis

    /// Checks every run-time-checkable constraint (RFC-001 section 2).
    public func validate() -> ValidationReport {
        let instantiated = runtime.withLock { $0.phase == .running }
        return ConstraintValidator().validate(.init(
            components: components.descriptors,
            contextGraph: contextRegistry.snapshot(),
            factoryViolations: components.factoryViolations,
            contextsCreatedByFactory: components.contextsCreatedByFactory,
            clientsInstantiated: instantiated,
            liveOrchestrators: OrchestratorLease.liveCount))
    }

    /// Action counters of every client, in registration order.
    public func clientMetrics() -> [ClientMetricsSnapshot] {
        runtime.withLock { runtime in runtime.clientOrder.compactMap { runtime.clients[$0]?.metrics.snapshot() } }
    }

    /// The working sets of every created client that keeps some, in
    /// registration order.
    public func workingSetUsage() async -> [WorkingSetUsage] {
        let reporting = runtime.withLock { runtime in
            runtime.clientOrder.compactMap { runtime.clients[$0]?.instance as? any WorkingSetReporting }
        }
        var usage: [WorkingSetUsage] = []
        for client in reporting { usage += await client.workingSets }
        return usage
    }

    /// Probes every capability and re-creates the unavailable ones; clients
    /// use the new instances from their next action on (constraint 2.14).
    public func recoverCapabilities() async -> [CapabilityRecovery] {
        await capabilityRegistry.recoverUnavailable()
    }
}

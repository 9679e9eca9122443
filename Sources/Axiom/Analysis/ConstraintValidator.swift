/// Checks every constraint of RFC-001 section 2 that can be checked at run
/// time against what the runtime recorded. Pure: takes facts, returns a
/// report, so each check can be proved with hand-made facts too.
public struct ConstraintValidator: Sendable {
    /// What the runtime knows at the moment of validation.
    public struct Facts: Sendable {
        public var components: [ComponentDescriptor]
        public var contextGraph: ContextGraphSnapshot
        public var factoryViolations: [String]
        public var contextsCreatedByFactory: Int
        /// Whether the orchestrator has made its clients (after `start()`).
        public var clientsInstantiated: Bool
        /// Orchestrators alive in this process.
        public var liveOrchestrators: Int

        public init(components: [ComponentDescriptor], contextGraph: ContextGraphSnapshot,
                    factoryViolations: [String] = [], contextsCreatedByFactory: Int,
                    clientsInstantiated: Bool, liveOrchestrators: Int) {
            self.components = components
            self.contextGraph = contextGraph
            self.factoryViolations = factoryViolations
            self.contextsCreatedByFactory = contextsCreatedByFactory
            self.clientsInstantiated = clientsInstantiated
            self.liveOrchestrators = liveOrchestrators
        }
    }

    public init() {}

    public func validate(_ facts: Facts) -> ValidationReport {
        let byType = Dictionary(facts.components.map { ($0.type, $0) }, uniquingKeysWith: { first, _ in first })
        func kind(_ type: String) -> ComponentKind? { byType[type]?.kind }
        func of(_ kinds: ComponentKind...) -> [ComponentDescriptor] {
            facts.components.filter { kinds.contains($0.kind) }
        }
        let clients = of(.statefulClient, .statelessClient)
        let contexts = of(.context)
        let capabilities = of(.capability)
        let states = of(.ownedState)
        let presentations = of(.presentation)
        var checks: [ValidationReport.Check] = []

        func add(_ constraint: ArchitectureConstraint, _ detail: String, _ violations: [String]) {
            checks.append(.init(constraint: constraint.rawValue, title: constraint.title,
                                enforcedBy: constraint.enforcement, passed: violations.isEmpty,
                                detail: detail, violations: violations))
        }
        func describe(_ type: String) -> String { kind(type).map { "\(type) (\($0.rawValue))" } ?? "\(type) (unregistered)" }

        // 2.1 Clients → capabilities only.
        add(.clientDependency, "\(clients.count) clients; every dependency must be a registered capability",
            clients.flatMap { client in
                client.dependencies.filter { kind($0) != .capability }
                    .map { "\(client.type) depends on \(describe($0))" }
            })

        // 2.2 Contexts → clients and contexts only.
        add(.contextDependency, "\(contexts.count) context types; dependencies must be clients or contexts",
            contexts.flatMap { context in
                context.dependencies.filter { !(kind($0)?.isClient ?? false) && kind($0) != .context }
                    .map { "\(context.type) depends on \(describe($0))" }
            })

        // 2.3 Capabilities → nothing.
        add(.capabilityIndependence, "\(capabilities.count) capabilities; none may have dependencies",
            capabilities.filter { !$0.dependencies.isEmpty }
                .map { "\($0.type) depends on \($0.dependencies.joined(separator: ", "))" })

        // 2.4 Presentation → exactly one context.
        add(.presentationContextBinding, "\(presentations.count) presentations; each bound to exactly one context",
            presentations.compactMap { presentation in
                let bound = presentation.dependencies
                if bound.count == 1, kind(bound[0]) == .context { return nil }
                return "\(presentation.type) is bound to [\(bound.map(describe).joined(separator: ", "))]"
            })

        // 2.5 One-way flow: each edge points to a lower layer (context → context is the DAG).
        add(.unidirectionalFlow, "\(facts.components.reduce(0) { $0 + $1.dependencies.count }) dependency edges",
            facts.components.flatMap { component in
                component.dependencies.compactMap { dependency -> String? in
                    guard let target = kind(dependency) else {
                        return "\(component.type) depends on unregistered \(dependency)"
                    }
                    if component.kind == .context, target == .context { return nil }
                    if target.layer > component.kind.layer, target != .ownedState { return nil }
                    return "\(component.type) (\(component.kind.rawValue)) → \(dependency) (\(target.rawValue)) flows upward"
                }
            })

        // 2.6 No client → client.
        add(.clientIsolation, "\(clients.count) clients; none may depend on another client",
            clients.flatMap { client in
                client.dependencies.filter { kind($0)?.isClient ?? false }
                    .map { "\(client.type) depends on client \($0)" }
            })

        // 2.7 One owner per state, and it is a stateful client.
        add(.stateOwnership, "\(states.count) state types; each owned by exactly one stateful client",
            states.compactMap { state in
                if state.owners.count != 1 {
                    return "\(state.type) is owned by \(state.owners.count) clients: \(state.owners.joined(separator: ", "))"
                }
                if kind(state.owners[0]) != .statefulClient {
                    return "\(state.type) is owned by \(describe(state.owners[0])), not a stateful client"
                }
                return nil
            })

        // 2.8 Context DAG.
        let onCycles = facts.contextGraph.nodesOnCycles()
        add(.contextComposition,
            "\(facts.contextGraph.nodes.count) live contexts, \(facts.contextGraph.edges.count) edges",
            onCycles.isEmpty ? [] : ["contexts on a cycle: \(onCycles.map(\.description).joined(separator: ", "))"])

        // 2.9 Only the factory creates contexts.
        var factory = facts.factoryViolations
        let unknown = Set(facts.contextGraph.nodes.map(\.type)).filter { kind($0) != .context }
        factory += unknown.sorted().map { "live context of unregistered type \($0)" }
        if facts.contextGraph.nodes.count > facts.contextsCreatedByFactory {
            factory.append("\(facts.contextGraph.nodes.count) live contexts but only \(facts.contextsCreatedByFactory) made by the factory")
        }
        add(.orchestratorResponsibility, "\(facts.contextsCreatedByFactory) contexts made by the factory", factory)

        // 2.10 Presentations per usage.
        add(.presentationLifetime, "\(presentations.count) presentations; lifetime must be per usage",
            presentations.filter { $0.lifetime != .perUsage }.map { "\($0.type) has lifetime \($0.lifetime.rawValue)" })

        // 2.11 Contexts per usage, never one instance twice.
        var contextLifetime = contexts.filter { $0.lifetime != .perUsage }
            .map { "\($0.type) has lifetime \($0.lifetime.rawValue)" }
        if facts.contextGraph.distinctInstances != facts.contextGraph.nodes.count {
            contextLifetime.append("\(facts.contextGraph.nodes.count) registrations share \(facts.contextGraph.distinctInstances) instances")
        }
        add(.contextLifetime, "\(contexts.reduce(0) { $0 + $1.instancesCreated }) instances made across \(contexts.count) types",
            contextLifetime)

        // 2.12 Client singletons.
        add(.clientLifetime, "\(clients.count) clients; each instantiated exactly once" +
                (facts.clientsInstantiated ? "" : " (not yet started: at most once)"),
            clients.compactMap { client in
                if client.lifetime != .singleton { return "\(client.type) has lifetime \(client.lifetime.rawValue)" }
                if client.instancesCreated > 1 { return "\(client.type) was instantiated \(client.instancesCreated) times" }
                if facts.clientsInstantiated, client.instancesCreated != 1 { return "\(client.type) was never instantiated" }
                return nil
            })

        // 2.13 State singletons paired with their singleton client.
        add(.stateLifetime, "\(states.count) state types; singleton, paired 1:1 with a singleton client",
            states.compactMap { state in
                if state.lifetime != .singleton { return "\(state.type) has lifetime \(state.lifetime.rawValue)" }
                if state.owners.count != 1 { return "\(state.type) is not paired with exactly one client" }
                if let owner = byType[state.owners[0]], owner.instancesCreated > 1 {
                    return "\(state.type) has \(owner.instancesCreated) instances through \(owner.type)"
                }
                return nil
            })

        // 2.14 Capabilities transient.
        add(.capabilityLifetime, "\(capabilities.count) capabilities, each re-creatable from its factory",
            capabilities.filter { $0.lifetime != .transient }.map { "\($0.type) has lifetime \($0.lifetime.rawValue)" })

        // 2.15 One orchestrator.
        let orchestrators = of(.orchestrator)
        var single: [String] = []
        if orchestrators.count != 1 { single.append("\(orchestrators.count) orchestrator components registered") }
        if facts.liveOrchestrators != 1 { single.append("\(facts.liveOrchestrators) orchestrators alive in the process") }
        single += orchestrators.filter { $0.lifetime != .singleton }.map { "\($0.type) has lifetime \($0.lifetime.rawValue)" }
        add(.orchestratorLifetime, "\(facts.liveOrchestrators) orchestrator alive", single)

        return ValidationReport(passed: checks.allSatisfy(\.passed), checks: checks, components: facts.components,
                                liveContexts: facts.contextGraph.nodes.count, contextEdges: facts.contextGraph.edges.count)
    }
}

/// The fifteen constraints of RFC-001 section 2 and where each is enforced.
/// docs/constraints.md maps each to its tests.
public enum ArchitectureConstraint: String, Sendable, Codable, CaseIterable {
    case clientDependency = "2.1"
    case contextDependency = "2.2"
    case capabilityIndependence = "2.3"
    case presentationContextBinding = "2.4"
    case unidirectionalFlow = "2.5"
    case clientIsolation = "2.6"
    case stateOwnership = "2.7"
    case contextComposition = "2.8"
    case orchestratorResponsibility = "2.9"
    case presentationLifetime = "2.10"
    case contextLifetime = "2.11"
    case clientLifetime = "2.12"
    case stateLifetime = "2.13"
    case capabilityLifetime = "2.14"
    case orchestratorLifetime = "2.15"

    /// Where the rule is enforced.
    public enum Enforcement: String, Sendable, Codable {
        /// The module graph with `--explicit-target-dependency-import-check
        /// error`, or the type system (an API that cannot express the breach).
        case compiler
        /// The build-time import rule check (Tests/ArchitectureTests).
        case ruleCheck
        /// The orchestrator, when it registers and creates components and in
        /// `validate()` at start-up.
        case runtime
    }

    public var title: String {
        switch self {
        case .clientDependency: "Clients depend only on capabilities"
        case .contextDependency: "Contexts depend only on clients and downstream contexts"
        case .capabilityIndependence: "Capabilities have no dependencies"
        case .presentationContextBinding: "Each presentation has exactly one context"
        case .unidirectionalFlow: "Dependencies flow Orchestrator → Context → Client → Capability"
        case .clientIsolation: "Clients do not depend on other clients"
        case .stateOwnership: "Each state is owned by exactly one client"
        case .contextComposition: "Contexts form a directed acyclic graph"
        case .orchestratorResponsibility: "Contexts are created only by the orchestrator's factory"
        case .presentationLifetime: "Presentations have many instances (one per usage)"
        case .contextLifetime: "Contexts have many instances (one per usage)"
        case .clientLifetime: "Clients are singletons per type"
        case .stateLifetime: "States are singletons per type, paired with their client"
        case .capabilityLifetime: "Capabilities are transient (re-created on availability change)"
        case .orchestratorLifetime: "The orchestrator is a singleton"
        }
    }

    public var enforcement: [Enforcement] {
        switch self {
        case .clientDependency, .clientIsolation, .capabilityIndependence, .presentationContextBinding,
             .unidirectionalFlow:
            [.compiler, .ruleCheck, .runtime]
        case .contextDependency:
            [.compiler, .ruleCheck, .runtime]
        case .orchestratorResponsibility:
            [.compiler, .runtime]
        case .stateOwnership, .contextComposition, .presentationLifetime, .contextLifetime, .clientLifetime,
             .stateLifetime, .capabilityLifetime, .orchestratorLifetime:
            [.runtime]
        }
    }
}

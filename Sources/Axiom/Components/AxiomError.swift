/// Errors of the Axiom runtime. A server never traps on these: each is thrown
/// to the caller, which maps it to a response or refuses to start.
public enum AxiomError: Error, Equatable, Sendable, CustomStringConvertible {
    case capabilityNotRegistered(String)
    case capabilityAlreadyRegistered(String)
    case capabilityUnavailable(String)
    /// A capability lost its way to the system it fronts in the middle of a
    /// change, after the change may have taken effect, and could not learn
    /// whether it did.
    case capabilityOutcomeUnknown(String)
    case undeclaredDependency(component: String, dependency: String)
    case clientNotRegistered(String)
    case clientAlreadyRegistered(String)
    case clientActivationFailed(client: String, reason: String)
    case presentationAlreadyBound(presentation: String, context: String)
    case orchestratorAlreadyRunning
    case orchestratorAlreadyStarted
    case orchestratorNotStarted
    case orchestratorShutDown
    case contextCreationOutsideFactory(String)
    case contextNotFound(ContextID)
    case contextCycle(upstream: ContextID, downstream: ContextID)
    case undeclaredDownstream(upstream: String, downstream: String)
    case sessionEnded(SessionID)
    case sessionCapacityExhausted(limit: Int)
    case constraintViolations(ValidationReport)

    public var description: String {
        switch self {
        case .capabilityNotRegistered(let type): "capability \(type) is not registered"
        case .capabilityAlreadyRegistered(let type): "capability \(type) is already registered"
        case .capabilityUnavailable(let type): "capability \(type) is not available"
        case .capabilityOutcomeUnknown(let type): "capability \(type) cannot tell whether the change took effect"
        case .undeclaredDependency(let component, let dependency):
            "\(component) resolved \(dependency), which it did not declare"
        case .clientNotRegistered(let type): "client \(type) is not registered"
        case .clientAlreadyRegistered(let type): "client \(type) is already registered (clients are singletons)"
        case .clientActivationFailed(let client, let reason): "client \(client) failed to activate: \(reason)"
        case .presentationAlreadyBound(let presentation, let context):
            "presentation \(presentation) is already bound to \(context); a presentation has exactly one context"
        case .orchestratorAlreadyRunning: "an orchestrator is already running in this process"
        case .orchestratorAlreadyStarted: "the orchestrator has already started; registrations are closed"
        case .orchestratorNotStarted: "the orchestrator has not started"
        case .orchestratorShutDown: "the orchestrator has shut down"
        case .contextCreationOutsideFactory(let detail): "context created outside the orchestrator's factory: \(detail)"
        case .contextNotFound(let id): "\(id) is not registered"
        case .contextCycle(let upstream, let downstream):
            "edge \(upstream) → \(downstream) would close a cycle in the context graph"
        case .undeclaredDownstream(let upstream, let downstream):
            "\(upstream) may not make \(downstream): it is not in its downstreamTypes"
        case .sessionEnded(let id): "session \(id.redacted) ended"
        case .sessionCapacityExhausted(let limit): "all \(limit) sessions are busy"
        case .constraintViolations(let report):
            "architecture constraints violated: " + report.failures.map { "\($0.constraint) \($0.violations.joined(separator: "; "))" }.joined(separator: " | ")
        }
    }
}

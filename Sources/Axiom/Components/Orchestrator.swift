/// RFC-001 1.5: application lifecycle. One per process (2.15); owns the
/// capability registry, makes the client singletons, is the only factory of
/// contexts (2.9) and keeps the context DAG (2.8).
///
/// The RFC isolates the orchestrator on `@MainActor`. A server has no main
/// thread to protect; ``AxiomOrchestrator`` keeps its tables behind locks so
/// that request paths on any thread can reach it without a hop.
public protocol Orchestrator: AnyObject, Sendable {
    var capabilityRegistry: CapabilityRegistry { get }
    var contextRegistry: ContextRegistry { get }
    var rootContexts: [any Context] { get }

    /// The context factory: always a new instance (2.11), registered in the
    /// DAG under `parent` (refused if the edge would close a cycle).
    func createContext<T: Context>(_ type: T.Type, parent: (any Context)?) async throws -> T
}

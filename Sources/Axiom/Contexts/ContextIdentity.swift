/// What a context keeps from its creation: its id, its type name and a weak
/// link to the orchestrator that made it (for the DAG queries and for making
/// downstream contexts). Weak, so a context never keeps the runtime alive.
public final class ContextIdentity: Sendable {
    public let id: ContextID
    public let typeName: String
    public weak let orchestrator: AxiomOrchestrator?

    init(id: ContextID, typeName: String, orchestrator: AxiomOrchestrator) {
        self.id = id
        self.typeName = typeName
        self.orchestrator = orchestrator
    }

    var registry: ContextRegistry {
        orchestrator?.contextRegistry ?? ContextRegistry.detached
    }
}

import AlphaClient
import Axiom

public actor RogueContext: Context {
    public nonisolated let identity: ContextIdentity

    public init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
    }

    public func send(_ action: Int) async throws {}
}

// breach: making a context without the orchestrator's factory
public func forge(_ orchestrator: AxiomOrchestrator) throws -> RogueContext {
    try RogueContext(ContextCreation(contextID: ContextID(rawValue: 1), typeName: "RogueContext",
                                     contextType: ObjectIdentifier(RogueContext.self), orchestrator: orchestrator))
}

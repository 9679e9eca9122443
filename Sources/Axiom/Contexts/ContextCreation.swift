import Synchronization

/// The one-shot token the orchestrator hands to a context's initialiser.
///
/// Its initialiser is internal to Axiom, so no other module can make one and
/// hence no other module can call a context's `init(_:)`: the orchestrator's
/// factory is the only way to create a context (constraint 2.9). Inside the
/// initialiser the token is claimed once (`claimIdentity()`); a second claim
/// (an init trying to make another context from the same token) and any use
/// after the orchestrator sealed it (a token smuggled out of `init`) throw,
/// and are recorded as violations of 2.9.
public final class ContextCreation: Sendable {
    private struct Status {
        var claimed = false
        var sealed = false
        /// Names of the clients resolved, for the orchestrator to record
        /// once the context is made (one registry lock per context, not
        /// one per client).
        var clients: [String] = []
    }

    let contextID: ContextID
    let typeName: String
    /// The context this one is made downstream of (nil for a root): what a
    /// feature context reads its upstream's state from, such as who is
    /// calling in the session it belongs to.
    public let upstream: (any Context)?
    private let contextType: ObjectIdentifier
    private let orchestrator: AxiomOrchestrator
    private let status = Mutex(Status())

    init(contextID: ContextID, typeName: String, contextType: ObjectIdentifier, upstream: (any Context)?,
         orchestrator: AxiomOrchestrator) {
        self.contextID = contextID
        self.typeName = typeName
        self.contextType = contextType
        self.upstream = upstream
        self.orchestrator = orchestrator
    }

    /// The identity of the context being created. Call exactly once, from
    /// the context's `init(_:)`.
    public func claimIdentity() throws -> ContextIdentity {
        let problem: String? = status.withLock { status in
            if status.sealed { return "token for \(typeName) used after its context was created" }
            if status.claimed { return "token for \(typeName) claimed by a second context" }
            status.claimed = true
            return nil
        }
        if let problem {
            orchestrator.components.recordFactoryViolation(problem)
            throw AxiomError.contextCreationOutsideFactory(problem)
        }
        return ContextIdentity(id: contextID, typeName: typeName, orchestrator: orchestrator)
    }

    /// The singleton client of type `C`, through a handle that records the
    /// client's metrics. The dependency is recorded for the component
    /// analysis when the orchestrator seals the token. Contexts reach clients
    /// only this way; capabilities are not offered to contexts at all
    /// (constraint 2.2).
    public func client<C: Client>(_ type: C.Type) throws -> ClientHandle<C> {
        // The handle's metrics carry the client's registered name, so no
        // `String(reflecting:)` runs per resolution (several per context made).
        let handle: ClientHandle<C>? = try status.withLock { status in
            guard !status.sealed else { return nil }
            let handle = try orchestrator.clientHandle(type)
            status.clients.append(handle.metrics.client)
            return handle
        }
        guard let handle else {
            let problem = "token for \(typeName) used after its context was created"
            orchestrator.components.recordFactoryViolation(problem)
            throw AxiomError.contextCreationOutsideFactory(problem)
        }
        return handle
    }

    /// What the composition root gave the context type being made
    /// (`AxiomOrchestrator.compose(_:with:)`), nil when it gave none of
    /// type `Parts`.
    public func composition<Parts: Sendable>(_ type: Parts.Type) -> Parts? {
        orchestrator.composition(of: contextType, as: type)
    }

    /// Ends the token's validity; returns whether an identity was claimed
    /// and the names of the clients resolved through it.
    func seal() -> (claimed: Bool, clients: [String]) {
        status.withLock { status in
            status.sealed = true
            return (status.claimed, status.clients)
        }
    }
}

import Synchronization

/// What a context keeps from its creation: its id, its type name, a weak
/// link to the orchestrator that made it (for the DAG queries and for making
/// downstream contexts; weak, so a context never keeps the runtime alive),
/// and the downstream contexts it has reached.
public final class ContextIdentity: Sendable {
    public let id: ContextID
    public let typeName: String
    public weak let orchestrator: AxiomOrchestrator?
    /// Downstream contexts by type, as `downstream(_:)` found or made them:
    /// a session's later requests reach their feature context here, under
    /// this context's own lock, not the registry's graph lock.
    private let reached = Mutex<[ObjectIdentifier: any Context]>([:])
    private let released = Atomic<Bool>(false)

    init(id: ContextID, typeName: String, orchestrator: AxiomOrchestrator) {
        self.id = id
        self.typeName = typeName
        self.orchestrator = orchestrator
    }

    var registry: ContextRegistry {
        orchestrator?.contextRegistry ?? ContextRegistry.detached
    }

    /// Whether the orchestrator released this context (it is out of the DAG).
    public var isReleased: Bool { released.load(ordering: .acquiring) }

    func markReleased() {
        reached.withLock { reached in
            released.store(true, ordering: .releasing)
            reached.removeAll()
        }
    }

    /// The live downstream context of `type` this one reached before.
    func reachedContext<T: Context>(_ type: T.Type) -> T? {
        guard let found = reached.withLock({ $0[ObjectIdentifier(type)] }) as? T, !found.identity.isReleased else {
            return nil
        }
        return found
    }

    /// Under the same lock as `markReleased`, so a released context keeps nothing.
    func noteReached<T: Context>(_ context: T) {
        reached.withLock { reached in
            if !isReleased { reached[ObjectIdentifier(T.self)] = context }
        }
    }
}

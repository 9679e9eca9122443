/// The seven component types of RFC-001 section 1.
public enum ComponentKind: String, Sendable, Codable, CaseIterable, Comparable {
    case orchestrator
    case presentation
    case context
    case statefulClient
    case statelessClient
    case ownedState
    case capability

    /// Position in the one-way flow Orchestrator/Presentation → Context →
    /// Client → Capability (constraint 2.5): a dependency must point to a
    /// higher layer number (context → context excepted, checked as a DAG).
    var layer: Int {
        switch self {
        case .orchestrator, .presentation: 0
        case .context: 1
        case .statefulClient, .statelessClient: 2
        case .ownedState, .capability: 3
        }
    }

    var isClient: Bool { self == .statefulClient || self == .statelessClient }

    public static func < (lhs: ComponentKind, rhs: ComponentKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The lifetimes of RFC-001 part B.
public enum ComponentLifetime: String, Sendable, Codable {
    /// One instance for the whole process (clients, states, orchestrator).
    case singleton
    /// A new instance for every usage (contexts, presentation).
    case perUsage
    /// Re-created when availability changes (capabilities).
    case transient
}

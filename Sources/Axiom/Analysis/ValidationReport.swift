/// The result of ``ConstraintValidator``: one check per constraint, JSON
/// encodable for the introspection endpoint.
public struct ValidationReport: Sendable, Codable, Equatable {
    public struct Check: Sendable, Codable, Equatable {
        public let constraint: String
        public let title: String
        public let enforcedBy: [ArchitectureConstraint.Enforcement]
        public let passed: Bool
        /// What was checked, e.g. "3 clients, each instantiated once".
        public let detail: String
        public let violations: [String]
    }

    public let passed: Bool
    public let checks: [Check]
    public let components: [ComponentDescriptor]
    public let liveContexts: Int
    public let contextEdges: Int

    public var failures: [Check] { checks.filter { !$0.passed } }

    public func check(_ constraint: ArchitectureConstraint) -> Check? {
        checks.first { $0.constraint == constraint.rawValue }
    }

    /// Throws ``AxiomError/constraintViolations(_:)`` unless every check passed.
    public func requirePassed() throws {
        if !passed { throw AxiomError.constraintViolations(self) }
    }
}

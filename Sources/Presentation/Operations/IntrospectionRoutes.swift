import Axiom
import Contexts
import FoundationEssentials
import HTTPServer

/// `GET /axiom/components` (admins only): the Axiom runtime's component
/// graph (every capability, client, owned state, context type and
/// presentation, with dependencies, lifetimes and instance counts), the
/// live contexts and sessions, capability availability, and the report of
/// the architecture constraints checked at run time.
public struct IntrospectionRoutes: RouteGroup {
    public typealias Bound = AdminContext
    public let listener = RouteListener.operations
    let admin: SessionBinding<AdminContext>
    let gate: SessionGate
    let orchestrator: AxiomOrchestrator

    public init(gate: SessionGate, orchestrator: AxiomOrchestrator) {
        admin = SessionBinding(gate: gate)
        self.gate = gate
        self.orchestrator = orchestrator
    }

    public func register(on router: inout Router) {
        router.get("/axiom/components", admin.handler { [gate, orchestrator] request in
            let report = orchestrator.validate()
            let document = ComponentsDocument(
                components: report.components,
                liveContexts: report.liveContexts,
                contextEdges: report.contextEdges,
                liveSessions: gate.liveSessions,
                capabilities: orchestrator.capabilityRegistry.availability.map {
                    .init(capability: $0.capability, available: $0.isAvailable)
                },
                validation: .init(passed: report.passed, checks: report.checks))
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var headers = HTTPFields()
            headers.set("Cache-Control", "no-store")
            return .json(.ok, Array(try encoder.encode(document)), headers: headers)
        })
    }

    struct ComponentsDocument: Encodable {
        struct Availability: Encodable {
            let capability: String
            let available: Bool
        }

        struct Validation: Encodable {
            let passed: Bool
            let checks: [ValidationReport.Check]
        }

        let components: [ComponentDescriptor]
        let liveContexts: Int
        let contextEdges: Int
        let liveSessions: Int
        let capabilities: [Availability]
        let validation: Validation
    }
}

import Axiom
import HTTPServer

/// The routes of one resource, bound to exactly one context type (RFC-001
/// constraint 2.4). A group declares its context type (`Bound`) and its
/// routes once; the composition root binds and registers every group from
/// one list. Its handlers only turn what the context answers into JSON:
/// finding the context, authentication, path parameters and error
/// rendering are the bindings' (`SessionBinding`, `SharedBinding`).
public protocol RouteGroup: Sendable {
    associatedtype Bound: Context

    /// The presentation's name in the component graph (the type's name).
    var name: String { get }

    /// Which listener serves it: the operations routes move to `ops_port`
    /// when one is configured.
    var listener: RouteListener { get }

    func register(on router: inout Router)
}

extension RouteGroup {
    public var name: String { String(describing: Self.self) }

    public var listener: RouteListener { .main }

    /// Declares the group and its one context type to the orchestrator.
    public func bind(to orchestrator: AxiomOrchestrator) throws {
        try orchestrator.registerPresentation(name, boundTo: Bound.self)
    }
}

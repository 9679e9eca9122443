import Axiom

/// The root of a benchmark session's graph, shaped like a signed-in
/// session's: a feature below it that has a context of its own below it
/// (as `SessionContext` → `CheckoutContext` → `OrdersContext`).
actor GraphRootContext: Context {
    static var downstreamTypes: [any Context.Type] { [GraphFeatureContext.self, CounterContext.self] }

    nonisolated let identity: ContextIdentity

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
    }
}

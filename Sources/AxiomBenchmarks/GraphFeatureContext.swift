import Axiom

/// A feature of a benchmark session: one client, and a downstream context
/// it makes on first use.
actor GraphFeatureContext: Context {
    static var downstreamTypes: [any Context.Type] { [CounterContext.self] }

    nonisolated let identity: ContextIdentity
    let counter: ClientHandle<CounterClient>

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        counter = try creation.client(CounterClient.self)
    }
}

import Axiom
import Synchronization

/// A context over the ledger client that records every update it observes.
actor LedgerContext: Context {
    nonisolated let identity: ContextIdentity
    let ledger: ClientHandle<LedgerClient>
    private let observations = ObservationSet()
    private(set) var seen: [Int] = []

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        ledger = try creation.client(LedgerClient.self)
    }

    func send(_ value: Int) async throws -> ToggleCapability {
        try await ledger.call { try await $0.append(value) }
    }

    func startObservation() async {
        observations.observe(ledger.updates.subscribe()) { [weak self] update in
            await self?.record(update)
        }
    }

    func stopObservation() async { observations.stopAll() }

    private func record(_ update: LedgerUpdate) {
        if case .appended(let value, _) = update { seen.append(value) }
    }
}

/// A context that coordinates two clients (the cross-domain case).
actor CheckoutContext: Context {
    nonisolated let identity: ContextIdentity
    private let ledger: ClientHandle<LedgerClient>
    private let tax: ClientHandle<TaxClient>

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        ledger = try creation.client(LedgerClient.self)
        tax = try creation.client(TaxClient.self)
    }

    /// Books an amount plus its tax; returns the tax.
    func send(_ amount: Int) async throws -> Int {
        let owed = try await tax.call { try await $0.tax(on: amount) }
        _ = try await ledger.call { try await $0.append(amount + owed) }
        return owed
    }
}

/// A context with no clients that makes downstream contexts of its own type
/// (and may hang a checkout below it).
actor NodeContext: Context {
    enum Action: Sendable {
        case addChild
    }

    static var downstreamTypes: [any Context.Type] { [NodeContext.self, CheckoutContext.self, LeafContext.self] }

    nonisolated let identity: ContextIdentity
    private(set) var appeared = 0
    private(set) var disappeared = 0

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
    }

    func send(_ action: Action) async throws -> NodeContext {
        switch action {
        case .addChild: try await makeDownstream(NodeContext.self)
        }
    }

    func onAppear() async { appeared += 1 }

    func onDisappear() async { disappeared += 1 }
}

/// Breach of 2.9 inside an initialiser: tries to make a second context from
/// the token it was given.
actor GreedyContext: Context {
    nonisolated let identity: ContextIdentity
    let sibling: NodeContext

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        sibling = try NodeContext(creation)
    }

    func send(_ action: Int) async throws {}
}

/// Breach of 2.9 after creation: keeps its token and later tries to make a
/// context with it, outside the factory.
actor SmugglerContext: Context {
    nonisolated let identity: ContextIdentity
    private let smuggled: ContextCreation

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        smuggled = creation
    }

    func send(_ action: Int) async throws -> NodeContext {
        try NodeContext(smuggled)
    }

    /// Asks the void token for a client.
    func resolveLedger() async throws -> ClientHandle<LedgerClient> {
        try smuggled.client(LedgerClient.self)
    }
}

/// A context whose initialiser resolves a client and then fails: the
/// client was resolved all the same, so the component graph lists it.
actor FailsAfterClientContext: Context {
    struct Refused: Error, Equatable {}

    nonisolated let identity: ContextIdentity
    let ledger: ClientHandle<LedgerClient>

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        ledger = try creation.client(LedgerClient.self)
        throw Refused()
    }
}

/// A context asking for a client type the orchestrator never made: a
/// context cannot conjure its own client instance (2.12), it is refused at
/// creation.
actor UnregisteredClientContext: Context {
    nonisolated let identity: ContextIdentity
    let shadow: ClientHandle<ShadowLedgerClient>

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
        shadow = try creation.client(ShadowLedgerClient.self)
    }

    func send(_ action: Int) async throws {}
}

/// A downstream context with no clients and no downstream of its own.
actor LeafContext: Context {
    nonisolated let identity: ContextIdentity

    init(_ creation: ContextCreation) throws {
        identity = try creation.claimIdentity()
    }
}

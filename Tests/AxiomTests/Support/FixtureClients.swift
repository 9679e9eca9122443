import Axiom

struct LedgerState: Sendable, Equatable {
    var entries: [Int] = []
    var applied: Set<Int> = []
}

enum LedgerUpdate: Sendable, Equatable {
    case appended(value: Int, count: Int)
}

/// A stateful client: appends values to its one state, refusing duplicates,
/// and publishes each change. Returns the capability instance it used.
actor LedgerClient: StatefulClient {
    enum Failure: Error, Equatable {
        case duplicate(Int)
    }

    private let store: CapabilityHandle<ToggleCapability>
    nonisolated let stateBroadcaster: StateBroadcaster<LedgerUpdate>
    private(set) var state = LedgerState()
    private(set) var activations = 0

    init(store: CapabilityHandle<ToggleCapability>, bufferLimit: Int) {
        self.store = store
        self.stateBroadcaster = StateBroadcaster(bufferLimit: bufferLimit)
    }

    func append(_ value: Int) throws -> ToggleCapability {
        let capability = try store.available()
        guard state.applied.insert(value).inserted else { throw Failure.duplicate(value) }
        state.entries.append(value)
        stateBroadcaster.publish(.appended(value: value, count: state.entries.count))
        return capability
    }

    func activate() async throws { activations += 1 }

    func deactivate() async { stateBroadcaster.finish() }
}

/// A stateless client: tax on an amount, from the rate capability.
actor TaxClient: StatelessClient {
    private let rates: CapabilityHandle<RateCapability>

    init(rates: CapabilityHandle<RateCapability>) { self.rates = rates }

    func tax(on amount: Int) throws -> Int {
        amount * (try rates.available().percent) / 100
    }

    func activate() async throws {}

    func deactivate() async {}
}

/// A second stateful client claiming the ledger's state type: a breach of
/// constraint 2.7 that compiles, so the orchestrator must refuse it.
actor ShadowLedgerClient: StatefulClient {
    nonisolated let stateBroadcaster = StateBroadcaster<LedgerUpdate>()
    private(set) var state = LedgerState()

    func activate() async throws {}

    func deactivate() async {}
}

import Axiom
import Capabilities
import Domain

public actor BetaClient: StatelessClient {
    private let tally: CapabilityHandle<TallyCapability>

    public init(tally: CapabilityHandle<TallyCapability>) { self.tally = tally }

    public func send(_ amount: Cents) async throws -> Cents { try tally.available().double(Cents(-amount.value)) }

    public func activate() async throws {}

    public func deactivate() async {}
}

import Axiom
import Capabilities
import Domain

public actor AlphaClient: StatelessClient {
    private let tally: CapabilityHandle<TallyCapability>

    public init(tally: CapabilityHandle<TallyCapability>) { self.tally = tally }

    public func double(_ amount: Cents) throws -> Cents { try tally.available().double(amount) }

    public func activate() async throws {}

    public func deactivate() async {}
}

import Axiom
import Domain

public final class TallyCapability: Capability {
    public init() {}

    public var isAvailable: Bool { true }

    public func checkAvailability() async -> Bool { true }

    public func double(_ amount: Cents) -> Cents { Cents(amount.value * 2) }
}

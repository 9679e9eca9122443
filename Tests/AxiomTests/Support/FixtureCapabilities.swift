import Axiom
import Synchronization

/// A capability whose availability the test switches, standing in for a
/// disk that fills up. Each instance has a serial number.
final class ToggleCapability: Capability {
    private static let made = Atomic<Int>(0)
    let serial: Int
    private let available = Atomic<Bool>(true)

    init() {
        serial = Self.made.add(1, ordering: .relaxed).newValue
    }

    var isAvailable: Bool { available.load(ordering: .relaxed) }

    func checkAvailability() async -> Bool { isAvailable }

    func setAvailable(_ value: Bool) { available.store(value, ordering: .relaxed) }
}

/// A fixed tax rate table.
final class RateCapability: Capability {
    let percent: Int

    init(percent: Int) { self.percent = percent }

    var isAvailable: Bool { true }

    func checkAvailability() async -> Bool { true }
}

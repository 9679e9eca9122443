import Axiom
import Capabilities
import Foundation
import Testing

@Suite("System clock capability")
struct SystemClockCapabilityTests {
    @Test("monotonic time never goes back, also across a re-created instance")
    func monotonic() async {
        let first = SystemClockCapability()
        #expect(await first.checkAvailability())
        #expect(first.isAvailable)
        var previous = first.monotonicNow()
        for _ in 0..<1_000 {
            let next = first.monotonicNow()
            #expect(next >= previous)
            previous = next
        }
        // A transient re-creation continues the same timeline.
        let second = SystemClockCapability()
        #expect(second.monotonicNow() >= previous)
    }

    @Test("wall time lies between two readings of Foundation's clock")
    func wallTime() {
        let clock = SystemClockCapability()
        let before = Date().timeIntervalSince1970
        let reading = clock.wallClockNow()
        let after = Date().timeIntervalSince1970
        let now = Double(reading.components.seconds) + Double(reading.components.attoseconds) / 1e18
        #expect(now - before >= -0.001)
        #expect(after - now >= -0.001)
    }

    @Test("serves as the session registry's time source")
    func isTimeSource() {
        let source: any TimeSource = SystemClockCapability()
        #expect(source.monotonicNow() > .zero)
    }
}

@Suite("Axiom capabilities")
struct AxiomCapabilityConformanceTests {
    @Test("the clock and the security capabilities are Axiom capabilities that probe as available")
    func conformances() async throws {
        let capabilities: [any Capability] = [SystemClockCapability(), try SecureRandom(), try PasswordHasher()]
        for capability in capabilities {
            #expect(await capability.checkAvailability())
            #expect(capability.isAvailable)
        }
    }
}

import Capabilities
import Foundation
import Testing

@Suite("Random capability")
struct RandomCapabilityTests {
    @Test("bytes, version-4 UUIDs and URL-safe tokens")
    func values() async throws {
        let random = RandomCapability()
        #expect(await random.checkAvailability())
        #expect(try random.bytes(64).count == 64)
        let uuid = try random.uuid().uuid
        #expect(uuid.6 >> 4 == 4)
        #expect(uuid.8 >> 6 == 0b10)
        let token = try random.token()
        #expect(token.count == 43)
        #expect(token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        let tokens = Set(try (0..<1_000).map { _ in try random.token() })
        #expect(tokens.count == 1_000)
    }

    @Test("a device that cannot be opened makes it unavailable, and errors are thrown")
    func unavailable() async {
        let random = RandomCapability(path: "/nonexistent/urandom")
        #expect(random.isAvailable == false)
        #expect(await random.checkAvailability() == false)
        #expect(throws: RandomCapability.Failure.unavailable) { try random.bytes(1) }
    }

    @Test("a source that runs dry marks it unavailable; a re-created instance works")
    func runsDry() async throws {
        let dry = RandomCapability(path: "/dev/null")
        #expect(dry.isAvailable)
        #expect(throws: RandomCapability.Failure.endOfFile) { try dry.bytes(8) }
        #expect(dry.isAvailable == false)
        let fresh = RandomCapability()
        #expect(await fresh.checkAvailability())
        #expect(try fresh.bytes(8).count == 8)
    }
}

import Foundation
import Testing
@testable import Capabilities

@Suite struct SecureRandomTests {
    @Test func tokensAre256BitAndUnique() throws {
        let random = try SecureRandom()
        #expect(random.isAvailable)
        let base64url = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var seen = Set<String>()
        for _ in 0..<2_000 {
            let token = random.token()
            #expect(token.count == 43) // 32 bytes, base64url without padding
            #expect(token.allSatisfy(base64url.contains))
            seen.insert(token)
        }
        #expect(seen.count == 2_000)

        let hex = random.token(encoding: .hex)
        #expect(hex.count == 64)
        #expect(hex.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(random.bytes(32).count == 32)
        #expect(random.bytes(0).isEmpty)
        #expect(random.bytes(64) != random.bytes(64))
    }

    @Test func randomBytesAreNotDegenerate() throws {
        let random = try SecureRandom()
        // 64 KiB: every byte value appears (probability of a miss ~ 256·e^-256).
        let sample = random.bytes(65_536)
        #expect(Set(sample).count == 256)
    }

    @Test func sha256MatchesKnownVectors() {
        #expect(TokenDigest.sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(TokenDigest.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(TokenDigest.sha256(Array("abc".utf8)).count == 32)
    }

    @Test func encodingsAndConstantTimeComparison() {
        #expect(Hex.encode([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.encode([]) == "")
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
        #expect(Base64URL.decode("a+b") == nil)
        #expect(Base64URL.decode("ab=") == nil)
        #expect(TokenDigest.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!TokenDigest.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!TokenDigest.constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(TokenDigest.constantTimeEquals([], []))
    }
}

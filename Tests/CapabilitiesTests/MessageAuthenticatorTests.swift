import Capabilities
import Testing

struct MessageAuthenticatorTests {
    /// RFC 4231 section 4.3 (test case 2: a key shorter than the block) and
    /// 4.7 (test case 6: a key longer than the block, hashed first), which
    /// the one-shot 32-byte-key API could not take.
    @Test func matchesRFC4231Vectors() throws {
        let authenticator = try MessageAuthenticator()
        let short = authenticator.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Hex.encode(short) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let long = authenticator.hmacSHA256(key: [UInt8](repeating: 0xaa, count: 131),
                                            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(Hex.encode(long) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func verifiesOnlyTheExactMAC() throws {
        let authenticator = try MessageAuthenticator()
        let key = Array("secret".utf8), message = Array("1700000000.{}".utf8)
        var mac = authenticator.hmacSHA256(key: key, message: message)
        #expect(authenticator.verify(mac, key: key, message: message))
        #expect(!authenticator.verify(mac, key: Array("secreT".utf8), message: message))
        #expect(!authenticator.verify(Array(mac.dropLast()), key: key, message: message))
        mac[31] ^= 1
        #expect(!authenticator.verify(mac, key: key, message: message))
        #expect(authenticator.hmacSHA256(key: [], message: []).count == MessageAuthenticator.macBytes)
    }
}

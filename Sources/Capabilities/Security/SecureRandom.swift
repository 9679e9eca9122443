import CSodium
import FoundationEssentials

/// Random bytes and opaque tokens from the system CSPRNG (libsodium's
/// `randombytes_buf`, i.e. `getrandom(2)` on Linux).
public final class SecureRandom: Sendable {
    /// How a token's bytes are written as text.
    public enum Encoding: Sendable {
        /// Lower-case hex: 2 characters per byte.
        case hex
        /// RFC 4648 §5 base64url without padding: 43 characters for 32 bytes.
        case base64url
    }

    public init() throws {
        try Sodium.ensureReady()
    }

    public var isAvailable: Bool { Sodium.isReady }

    public func checkAvailability() async -> Bool { Sodium.isReady }

    /// `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        guard count > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        buffer.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return buffer
    }

    /// A fresh opaque token of `byteCount` random bytes (default 32 = 256 bits).
    public func token(byteCount: Int = 32, encoding: Encoding = .base64url) -> String {
        let raw = bytes(byteCount)
        return switch encoding {
        case .hex: Hex.encode(raw)
        case .base64url: Base64URL.encode(raw)
        }
    }
}

/// Lower-case hexadecimal.
public enum Hex {
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// RFC 4648 §5 base64url, without padding.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        let standard = Data(bytes).base64EncodedString()
        return String(String.UnicodeScalarView(standard.unicodeScalars.compactMap { scalar -> Unicode.Scalar? in
            switch scalar {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: scalar
            }
        }))
    }

    /// The bytes `text` encodes, or nil when it is not unpadded base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        var standard = ""
        standard.unicodeScalars.reserveCapacity(text.utf8.count + 3)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9": standard.unicodeScalars.append(scalar)
            case "-": standard.unicodeScalars.append("+")
            case "_": standard.unicodeScalars.append("/")
            default: return nil
            }
        }
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) }
    }
}

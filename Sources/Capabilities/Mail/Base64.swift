import FoundationEssentials

/// Base64 (RFC 4648) for AUTH's credentials.
enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}

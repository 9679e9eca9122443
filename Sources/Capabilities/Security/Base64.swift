import FoundationEssentials

/// Base64 (RFC 4648 section 4, with padding): SMTP AUTH's credentials, and
/// a webhook's secret and signatures (Standard Webhooks).
public enum Base64 {
    public static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// The bytes `text` encodes, or nil when it is not padded base64.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        Data(base64Encoded: String(text)).map { Array($0) }
    }
}

/// The parsed `Axiom-Signature` header: `t=<unix seconds>,v1=<hex>` (more
/// than one `v1` allowed, as while a provider rotates its secret; unknown
/// schemes ignored). The signed text is `"<t>.<raw body>"`.
public struct WebhookSignature: Hashable, Sendable {
    public let timestamp: Int64
    /// Each `v1` value, decoded from hex: 32 bytes of HMAC-SHA256.
    public let signatures: [[UInt8]]

    /// Longest header accepted; a real one is about 80 bytes.
    public static let maxHeaderBytes = 1024

    /// Throws `PaymentError.invalidSignature` for anything but a well-formed header.
    public init(header: String?) throws(PaymentError) {
        guard let header, !header.isEmpty else { throw .invalidSignature("missing") }
        guard header.utf8.count <= Self.maxHeaderBytes else { throw .invalidSignature("too long") }
        var timestamp: Int64?
        var signatures: [[UInt8]] = []
        for item in header.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw .invalidSignature("malformed") }
            let name = parts[0].trimmingSpaces, value = parts[1].trimmingSpaces
            switch name {
            case "t":
                guard timestamp == nil, !value.isEmpty, value.utf8.count <= 12, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                      let seconds = Int64(value) else { throw .invalidSignature("malformed timestamp") }
                timestamp = seconds
            case "v1":
                guard let bytes = Self.hexBytes(value), bytes.count == 32 else { throw .invalidSignature("malformed v1") }
                signatures.append(bytes)
            default:
                continue
            }
        }
        guard let timestamp else { throw .invalidSignature("no timestamp") }
        guard !signatures.isEmpty else { throw .invalidSignature("no v1 signature") }
        self.timestamp = timestamp
        self.signatures = signatures
    }

    /// The bytes the provider signed: `"<t>." + body`.
    public func signedPayload(body: [UInt8]) -> [UInt8] {
        Array("\(timestamp).".utf8) + body
    }

    private static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }
}

private extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}

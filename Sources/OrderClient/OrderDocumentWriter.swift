import Domain

/// The bytes of a stored order document, written as `JSONEncoder` with
/// `.sortedKeys` writes them (OrderDocumentTests compare byte for byte):
/// no whitespace, integers in decimal, and strings escaped as
/// swift-foundation's encoder escapes them: `"`, `\` and `/` (as `\/`)
/// with a backslash, U+0008/0009/000A/000C/000D as `\b \t \n \f \r`, the
/// other controls below U+0020 as `\u00xx` (lower-case hex); DEL, U+2028,
/// U+2029 and all other non-ASCII as raw UTF-8.
struct OrderDocumentWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Punctuation and member names, written as they are.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A JSON string literal of `text`.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var plainFrom = 0
            for (index, byte) in utf8.enumerated() where Self.needsEscape(byte) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainFrom..<index]))
                escape(byte)
                plainFrom = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainFrom...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func integer(_ value: Int64) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // Digits of the magnitude (Int64.min's too), least significant first, then reversed in place.
        var magnitude = value.magnitude
        let start = bytes.count
        while magnitude > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        }
        bytes[start...].reverse()
    }

    /// `{"amount":…,"currency":"…"}`.
    mutating func money(_ money: Money) {
        raw("{\"amount\":")
        integer(money.amount)
        raw(",\"currency\":")
        string(money.currency.code)
        bytes.append(UInt8(ascii: "}"))
    }

    /// A shipping address, members sorted, `phone` and `email` left out when nil.
    mutating func address(_ address: ShippingAddress) {
        raw("{\"city\":")
        string(address.city)
        raw(",\"country\":")
        string(address.country)
        if let email = address.email {
            raw(",\"email\":")
            string(email)
        }
        raw(",\"lines\":[")
        for (index, line) in address.lines.enumerated() {
            if index > 0 { raw(",") }
            string(line)
        }
        raw("],\"name\":")
        string(address.name)
        if let phone = address.phone {
            raw(",\"phone\":")
            string(phone)
        }
        raw(",\"postal_code\":")
        string(address.postalCode)
        bytes.append(UInt8(ascii: "}"))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/")
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        default:
            let hex: StaticString = "0123456789abcdef"
            raw("u00")
            bytes.append(hex.utf8Start[Int(byte >> 4)])
            bytes.append(hex.utf8Start[Int(byte & 0x0F)])
        }
    }
}

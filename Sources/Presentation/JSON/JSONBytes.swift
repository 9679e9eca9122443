import HTTPServer

/// A JSON document written straight into bytes, for the few documents
/// served on every request of a hot route (see `CartJSON`). Strings go
/// through as they are when no byte of theirs needs escaping (the usual
/// case); otherwise `JSONString` escapes them, exactly as in error bodies.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// JSON punctuation and member names, written as they are.
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Text known to need no escaping (ids, codes), written as they are.
    mutating func rawString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A JSON string literal of `text`.
    mutating func string(_ text: String) {
        var text = text
        let plain = text.withUTF8 { utf8 in
            guard !utf8.contains(where: JSONBytes.mayNeedEscape) else { return false }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if !plain { bytes.append(contentsOf: JSONString.encode(text).utf8) }
    }

    mutating func integer(_ value: some BinaryInteger) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // Digits of the magnitude, least significant first, then reversed in place.
        var magnitude = value.magnitude
        let start = bytes.count
        while magnitude > 0 {
            let digit = UInt8(truncatingIfNeeded: magnitude % 10)
            bytes.append(UInt8(ascii: "0") + digit)
            magnitude /= 10
        }
        bytes[start...].reverse()
    }

    /// The bytes `JSONString` may have to escape: control characters,
    /// quote, backslash, DEL, and 0xE2, the lead byte of U+2028/U+2029.
    private static func mayNeedEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F || byte == 0xE2
    }
}

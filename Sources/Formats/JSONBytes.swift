/// A JSON document written straight into bytes: every document served on
/// a hot route, every stored order document, and (through `JSONString`)
/// the server's own error bodies and log lines. No whitespace; strings
/// escaped as in `string(_:)`.
public struct JSONBytes {
    /// The document so far.
    public var bytes: [UInt8] { storage }
    @usableFromInline var storage: [UInt8] = []

    @inlinable
    public init(capacity: Int) {
        storage.reserveCapacity(capacity)
    }

    /// JSON punctuation and member names, written as they are.
    @inlinable
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { storage.append(contentsOf: $0) }
    }

    /// A JSON value already written (a stored document), as it is: the
    /// caller has checked it is one.
    @inlinable
    public mutating func rawValue(_ value: [UInt8]) {
        storage.append(contentsOf: value)
    }

    /// Text known to need no escaping (ids, codes), written as it is.
    @inlinable
    public mutating func rawString(_ text: String) {
        storage.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { storage.append(contentsOf: $0) }
        storage.append(UInt8(ascii: "\""))
    }

    /// A JSON string literal of `text`: quote, backslash and the controls
    /// below U+0020 escaped (`\n \r \t`, the others as `\u00xx`), and DEL,
    /// U+2028 and U+2029 as `\u007f \u2028 \u2029` (the last two end lines
    /// in JavaScript). Text with nothing to escape, the usual case, is
    /// copied as it is.
    @inlinable
    public mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            storage.append(UInt8(ascii: "\""))
            if utf8.contains(where: Self.mayNeedEscape) { appendEscaped(utf8) } else { storage.append(contentsOf: utf8) }
            storage.append(UInt8(ascii: "\""))
        }
    }

    @inlinable
    public mutating func integer(_ value: some BinaryInteger) {
        if value == 0 {
            storage.append(UInt8(ascii: "0"))
            return
        }
        if value < 0 { storage.append(UInt8(ascii: "-")) }
        // Digits of the magnitude (Int64.min's too), least significant first, then reversed in place.
        var magnitude = value.magnitude
        let start = storage.count
        while magnitude > 0 {
            storage.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        }
        storage[start...].reverse()
    }

    /// Whether `string(_:)` may have to escape some of `text`.
    public static func needsEscaping(_ text: String) -> Bool {
        text.utf8.contains(where: mayNeedEscape)
    }

    /// The bytes `string(_:)` may have to escape: control characters,
    /// quote, backslash, DEL, and 0xE2, the lead byte of U+2028/U+2029
    /// (and of other characters, which the careful path copies).
    @usableFromInline
    static func mayNeedEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F || byte == 0xE2
    }

    /// `utf8` (a Swift string's, so well-formed) with what needs escaping escaped.
    @usableFromInline
    mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                storage.append(UInt8(ascii: "\\"))
                storage.append(byte)
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20, 0x7F: appendUnicodeEscape(UInt16(byte))
            case 0xE2 where index + 1 < utf8.count && utf8[index] == 0x80 && (utf8[index + 1] == 0xA8 || utf8[index + 1] == 0xA9):
                appendUnicodeEscape(utf8[index + 1] == 0xA8 ? 0x2028 : 0x2029)
                index += 2
            default: storage.append(byte)
            }
        }
    }

    /// `\uXXXX`, lower-case hex.
    private mutating func appendUnicodeEscape(_ unit: UInt16) {
        let hex: StaticString = "0123456789abcdef"
        raw("\\u")
        for shift in stride(from: 12, through: 0, by: -4) {
            storage.append(hex.utf8Start[Int(unit >> UInt16(shift) & 0x0F)])
        }
    }
}

/// Well-formed UTF-8 by the Unicode Standard's table 3-7: no overlong
/// forms, no surrogates (ED A0..BF), nothing above U+10FFFF, no stray
/// continuation bytes. RFC 8259 section 8.1 requires UTF-8; a body in
/// UTF-16 or Latin-1 fails here rather than being read as something else.
public enum UTF8Sequence {
    /// The length (2…4) of the well-formed multi-byte sequence starting at
    /// `start`, or 0 when there is none.
    public static func validLength(in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int {
        guard start < bytes.count else { return 0 }
        let lead = bytes[start]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: return 0
        }
        guard bytes.count - start >= length, secondRange.contains(bytes[start + 1]) else { return 0 }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[start + offset]) {
            return 0
        }
        return length
    }
}

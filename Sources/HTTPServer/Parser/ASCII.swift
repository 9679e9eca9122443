/// Byte classes from RFC 9110 section 5.6.2 (token) and 5.5 (field values),
/// as lookup tables so the parser's inner loops are a load and a compare.
enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A

    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
    ///         "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    static let isTokenTable: [Bool] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(UInt8(byte))
        }
    }

    /// field-vchar = VCHAR / obs-text, plus SP and HTAB inside a value.
    /// NUL, CR, LF and other controls are refused (request smuggling shapes).
    static let isFieldValueTable: [Bool] = (0..<256).map { byte in
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }

    /// Bytes allowed in a request-target: visible ASCII only (no spaces,
    /// controls or raw non-ASCII; those must be percent-encoded).
    static let isTargetTable: [Bool] = (0..<256).map { byte in
        byte > 0x20 && byte < 0x7F
    }

    /// reg-name bytes of a Host (RFC 3986 3.2.2): unreserved / pct-encoded / sub-delims.
    static let isRegNameTable: [Bool] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return "-._~%!$&'()*+,;=".utf8.contains(UInt8(byte))
        }
    }

    @inline(__always) static func isRegName(_ byte: UInt8) -> Bool { isRegNameTable[Int(byte)] }
    @inline(__always) static func isToken(_ byte: UInt8) -> Bool { isTokenTable[Int(byte)] }
    @inline(__always) static func isFieldValue(_ byte: UInt8) -> Bool { isFieldValueTable[Int(byte)] }
    @inline(__always) static func isTarget(_ byte: UInt8) -> Bool { isTargetTable[Int(byte)] }

    @inline(__always) static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Lowercases an ASCII string (header names, codings); non-ASCII bytes pass through.
    static func lowercased(_ string: some StringProtocol) -> String {
        String(decoding: string.utf8.map { lowercased($0) }, as: UTF8.self)
    }
}

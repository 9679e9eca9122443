/// Whether bytes are syntactically JSON (RFC 8259), without building any
/// value: used to tell "not JSON at all" (400) from "JSON holding a value
/// the decoder cannot represent, such as a number beyond 64 bits" (422).
enum JSONSyntax {
    /// Nesting deeper than this is treated as not JSON (the decoder refuses it too).
    static let maxDepth = 512

    static func isValid(_ bytes: [UInt8]) -> Bool {
        var reader = Reader(bytes: bytes)
        reader.skipWhitespace()
        guard reader.value(depth: 0) else { return false }
        reader.skipWhitespace()
        return reader.index == bytes.count
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < JSONSyntax.maxDepth, let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), depth: depth, keyed: true)
            case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), depth: depth, keyed: false)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func container(close: UInt8, depth: Int, keyed: Bool) -> Bool {
            index += 1
            skipWhitespace()
            if current == close {
                index += 1
                return true
            }
            while true {
                if keyed {
                    guard current == UInt8(ascii: "\""), string() else { return false }
                    skipWhitespace()
                    guard current == UInt8(ascii: ":") else { return false }
                    index += 1
                    skipWhitespace()
                }
                guard value(depth: depth + 1) else { return false }
                skipWhitespace()
                guard let byte = current else { return false }
                index += 1
                if byte == close { return true }
                guard byte == UInt8(ascii: ",") else { return false }
                skipWhitespace()
            }
        }

        mutating func string() -> Bool {
            index += 1
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return true
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { return false }
                    index += 1
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            guard let hex = current, hex.isHexDigit else { return false }
                            index += 1
                        }
                    } else if !Array("\"\\/bfnrt".utf8).contains(escaped) {
                        return false
                    }
                case 0..<0x20: return false
                default: continue
                }
            }
            return false
        }

        mutating func literal(_ word: String) -> Bool {
            for expected in word.utf8 {
                guard current == expected else { return false }
                index += 1
            }
            return true
        }

        mutating func number() -> Bool {
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, first.isDigit else { return false }
            index += 1
            if first != UInt8(ascii: "0") { digits() }
            if current == UInt8(ascii: ".") {
                index += 1
                guard current?.isDigit == true else { return false }
                digits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard current?.isDigit == true else { return false }
                digits()
            }
            return true
        }

        mutating func digits() {
            while current?.isDigit == true { index += 1 }
        }
    }
}

private extension UInt8 {
    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f")) || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}

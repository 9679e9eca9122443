/// The scanner behind `JSONSyntax.check`: a recursive descent over the
/// bytes that builds no values, only each object's member names (to find
/// duplicates) and the path to where it is (to name the field of a number
/// the API cannot take). Every index step is bounded by `bytes.count`, and
/// the only arithmetic on input is overflow-checked.
struct JSONSyntaxReader {
    private enum Step {
        case member([UInt8])
        case element(Int)
    }

    let bytes: [UInt8]
    private var index = 0
    private var path: [Step] = []
    /// The first number the API cannot take, with where it is.
    private(set) var numberFinding: JSONSyntax.Verdict?

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index == bytes.count }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    mutating func value(depth: Int) -> Bool {
        guard depth < JSONSyntax.maxDepth, let byte = current else { return false }
        switch byte {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    private mutating func object(depth: Int) -> Bool {
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return true
        }
        var names = Set<[UInt8]>()
        while true {
            // RFC 8259 section 4: a member name once per object (compared
            // after unescaping: "a" and "\u0061" are the same name).
            guard current == UInt8(ascii: "\""), let name = string(), names.insert(name).inserted else { return false }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return false }
            index += 1
            skipWhitespace()
            path.append(.member(name))
            guard value(depth: depth + 1) else { return false }
            path.removeLast()
            skipWhitespace()
            guard let byte = current else { return false }
            index += 1
            if byte == UInt8(ascii: "}") { return true }
            // A comma must be followed by a member: `{"a":1,}` is refused here.
            guard byte == UInt8(ascii: ",") else { return false }
            skipWhitespace()
        }
    }

    private mutating func array(depth: Int) -> Bool {
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return true
        }
        var position = 0
        while true {
            path.append(.element(position))
            guard value(depth: depth + 1) else { return false }
            path.removeLast()
            position += 1
            skipWhitespace()
            guard let byte = current else { return false }
            index += 1
            if byte == UInt8(ascii: "]") { return true }
            guard byte == UInt8(ascii: ",") else { return false }
            skipWhitespace()
        }
    }

    /// A string's content as UTF-8 with escapes resolved, or nil when it is
    /// not a JSON string of valid UTF-8.
    private mutating func string() -> [UInt8]? {
        index += 1
        var content: [UInt8] = []
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return content
            case UInt8(ascii: "\\"):
                index += 1
                guard escape(into: &content) else { return nil }
            case 0..<0x20:
                return nil
            case 0x20..<0x80:
                content.append(byte)
                index += 1
            default:
                let length = UTF8Sequence.validLength(in: bytes, at: index)
                guard length > 0 else { return nil }
                content.append(contentsOf: bytes[index..<index + length])
                index += length
            }
        }
        return nil
    }

    private mutating func escape(into content: inout [UInt8]) -> Bool {
        guard let escaped = current else { return false }
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): content.append(escaped)
        case UInt8(ascii: "b"): content.append(0x08)
        case UInt8(ascii: "f"): content.append(0x0C)
        case UInt8(ascii: "n"): content.append(0x0A)
        case UInt8(ascii: "r"): content.append(0x0D)
        case UInt8(ascii: "t"): content.append(0x09)
        case UInt8(ascii: "u"):
            guard let unit = hexUnit() else { return false }
            var scalarValue = UInt32(unit)
            if (0xD800..<0xDC00).contains(unit) {
                // A high surrogate must be followed by an escaped low one
                // (RFC 8259 section 7); alone it is no character at all.
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    return false
                }
                index += 2
                guard let low = hexUnit(), (0xDC00..<0xE000).contains(low) else { return false }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { return false }
            content.append(contentsOf: UTF8.encode(scalar)!)
        default:
            return false
        }
        return true
    }

    private mutating func hexUnit() -> UInt16? {
        var unit: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexValue(byte) else { return nil }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        word.withUTF8Buffer { word in
            for expected in word {
                guard current == expected else { return false }
                index += 1
            }
            return true
        }
    }

    private mutating func number() -> Bool {
        let negative = current == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let first = current, first.isDigit else { return false }
        let digitsStart = index
        index += 1
        if first != UInt8(ascii: "0") { digits() }
        let digitsEnd = index
        var integral = true
        if current == UInt8(ascii: ".") {
            index += 1
            guard current?.isDigit == true else { return false }
            digits()
            integral = false
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard current?.isDigit == true else { return false }
            digits()
            integral = false
        }
        guard numberFinding == nil else { return true }
        if !integral {
            numberFinding = .notAnInteger(path: pathText)
        } else if !Self.fitsInt64(bytes[digitsStart..<digitsEnd], negative: negative) {
            numberFinding = .outOfRange(path: pathText)
        }
        return true
    }

    private mutating func digits() {
        while current?.isDigit == true { index += 1 }
    }

    /// Whether the decimal digits (no leading zero) are within Int64, the
    /// magnitude built with overflow-checked steps (−2^63 fits, 2^63 not).
    private static func fitsInt64(_ digits: ArraySlice<UInt8>, negative: Bool) -> Bool {
        guard digits.count <= 19 else { return false }
        var magnitude: UInt64 = 0
        for digit in digits {
            let (times10, overflowA) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { return false }
            magnitude = sum
        }
        return magnitude <= (negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max))
    }

    /// `items[2].quantity`, as `JSONBody.path` names a decoding error's place.
    private var pathText: String {
        var text = ""
        for step in path {
            switch step {
            case .element(let position): text += "[\(position)]"
            case .member(let name):
                let name = String(decoding: name, as: UTF8.self)
                text += text.isEmpty ? name : ".\(name)"
            }
        }
        return text.isEmpty ? "body" : text
    }
}

private extension UInt8 {
    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
}

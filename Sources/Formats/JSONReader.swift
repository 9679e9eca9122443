/// A strict reader of JSON text (RFC 8259) over bytes: the one scanner
/// behind the request-body check (`JSONSyntax`) and the order document
/// reader. It builds no values of its own; each caller takes what it
/// needs from its pieces (a string's unescaped UTF-8, a number's kind,
/// an object's members, an array's elements). Every method answers
/// nil/false as soon as the text is not JSON at that point (bad syntax,
/// a control character or invalid UTF-8 in a string, a lone surrogate
/// escape); every index step is bounded by `bytes.count`, and the only
/// arithmetic on input is overflow-checked.
public struct JSONReader {
    public let bytes: UnsafeBufferPointer<UInt8>
    public private(set) var index = 0

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    public var isAtEnd: Bool { index == bytes.count }

    /// The byte at the reading position, nil at the end.
    public var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// JSON's four whitespace bytes (RFC 8259 section 2).
    public mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Steps over `byte` if it is next.
    public mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Steps over `word` (`true`, `false`, `null`) if it is next.
    public mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            return false
        }
        index += count
        return true
    }

    // MARK: - Objects and arrays

    /// `{ "name": value, … }` from the reading position, each value read
    /// by `member` (positioned at it, whitespace skipped) with the name's
    /// unescaped UTF-8 (valid during the call only); false as soon as
    /// anything is off or `member` answers false.
    public mutating func object(_ member: (inout JSONReader, UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return true }
        while true {
            // A comma must be followed by a member: `{"a":1,}` is refused here.
            let read = string { name, reader in
                reader.skipWhitespace()
                guard reader.take(UInt8(ascii: ":")) else { return false }
                reader.skipWhitespace()
                return member(&reader, name)
            }
            guard read else { return false }
            skipWhitespace()
            if take(UInt8(ascii: ",")) {
                skipWhitespace()
                continue
            }
            return take(UInt8(ascii: "}"))
        }
    }

    /// `[ value, … ]` from the reading position, each value read by
    /// `element` (positioned at it, whitespace skipped).
    public mutating func array(_ element: (inout JSONReader) -> Bool) -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return true }
        while true {
            guard element(&self) else { return false }
            skipWhitespace()
            if take(UInt8(ascii: ",")) {
                skipWhitespace()
                continue
            }
            return take(UInt8(ascii: "]"))
        }
    }

    // MARK: - Strings

    /// A string literal's text, or nil when it is not a JSON string of valid UTF-8.
    public mutating func string() -> String? {
        var text: String?
        _ = string { utf8, _ in
            text = String(decoding: utf8, as: UTF8.self)
            return true
        }
        return text
    }

    /// A string literal from the reading position: `body` gets its
    /// unescaped, validated UTF-8 (valid during the call only) and the
    /// reader, positioned after the closing quote; false when there is no
    /// such string or `body` answers false. Unescaped text is handed over
    /// in place; escaped text is gathered first.
    public mutating func string(_ body: (UnsafeBufferPointer<UInt8>, inout JSONReader) -> Bool) -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return body(text, &self)
            case UInt8(ascii: "\\"):
                var text = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                guard gatherEscaped(into: &text) else { return false }
                return text.withUnsafeBufferPointer { body($0, &self) }
            case 0..<0x20:
                return false
            case 0x20..<0x80:
                index += 1
            default:
                let length = UTF8Sequence.validLength(in: bytes, at: index)
                guard length > 0 else { return false }
                index += length
            }
        }
        return false
    }

    /// The rest of a string from an escape on, unescaped into `text`,
    /// through the closing quote.
    private mutating func gatherEscaped(into text: inout [UInt8]) -> Bool {
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return true
            case UInt8(ascii: "\\"):
                index += 1
                guard unescape(into: &text) else { return false }
            case 0..<0x20:
                return false
            case 0x20..<0x80:
                text.append(byte)
                index += 1
            default:
                let length = UTF8Sequence.validLength(in: bytes, at: index)
                guard length > 0 else { return false }
                text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<index + length]))
                index += length
            }
        }
        return false
    }

    private mutating func unescape(into text: inout [UInt8]) -> Bool {
        guard let escaped = current else { return false }
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
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
            // A lone low surrogate is no scalar either.
            guard let scalar = Unicode.Scalar(scalarValue) else { return false }
            text.append(contentsOf: UTF8.encode(scalar)!)
        default:
            return false
        }
        return true
    }

    private mutating func hexUnit() -> UInt16? {
        var unit: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = current else { return nil }
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(nibble)
            index += 1
        }
        return unit
    }

    // MARK: - Numbers

    /// What a number literal holds, for readers whose fields are all integers.
    public enum Number: Equatable {
        case integer(Int64)
        /// A fraction or an exponent (`1.0`, `1e1`), whole or not.
        case fractional
        /// An integer beyond Int64.
        case outOfRange
    }

    /// A number literal from the reading position (`-?(0|[1-9][0-9]*)`,
    /// then an optional fraction and exponent), or nil when there is none.
    public mutating func number() -> Number? {
        let negative = take(UInt8(ascii: "-"))
        guard let first = current, first.isDigit else { return nil }
        let digitsStart = index
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        let digitsEnd = index
        var integral = true
        if take(UInt8(ascii: ".")) {
            guard current?.isDigit == true else { return nil }
            skipDigits()
            integral = false
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard current?.isDigit == true else { return nil }
            skipDigits()
            integral = false
        }
        guard integral else { return .fractional }
        return Self.integer(UnsafeBufferPointer(rebasing: bytes[digitsStart..<digitsEnd]), negative: negative)
            .map(Number.integer) ?? .outOfRange
    }

    private mutating func skipDigits() {
        while current?.isDigit == true { index += 1 }
    }

    /// The decimal digits (no leading zero) as an Int64, accumulated
    /// negatively so that −2^63 fits; nil beyond Int64.
    private static func integer(_ digits: UnsafeBufferPointer<UInt8>, negative: Bool) -> Int64? {
        var value: Int64 = 0
        for digit in digits {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.subtractingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflowTimes, !overflowSum else { return nil }
            value = sum
        }
        if negative { return value }
        return value == .min ? nil : -value
    }
}

private extension UInt8 {
    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
}

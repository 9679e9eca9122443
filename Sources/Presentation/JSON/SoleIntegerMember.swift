/// Reads a body that is exactly one JSON object with one member holding an
/// integer, like `{"quantity": 3}` — the whole body of `PUT /cart/items`,
/// sent on every cart change, where JSONDecoder cost far more than the
/// write's other work in Swift. Anything else (other members, escapes in the name, a
/// fraction, an exponent, leading zeros, more than 18 digits, not JSON at
/// all) is nil: the caller decodes it the usual way, with the usual errors,
/// so this can only be right or step aside.
enum SoleIntegerMember {
    static func value(named name: StaticString, in body: [UInt8]) -> Int? {
        var index = 0
        func skipWhitespace() {
            while index < body.count, body[index] == 0x20 || body[index] == 0x09 || body[index] == 0x0A || body[index] == 0x0D {
                index += 1
            }
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < body.count, body[index] == byte else { return false }
            index += 1
            return true
        }
        skipWhitespace()
        guard expect(UInt8(ascii: "{")) else { return nil }
        skipWhitespace()
        guard expect(UInt8(ascii: "\"")) else { return nil }
        let matchesName = name.withUTF8Buffer { name -> Bool in
            guard body.count - index >= name.count else { return false }
            for byte in name {
                guard body[index] == byte else { return false }
                index += 1
            }
            return true
        }
        guard matchesName, expect(UInt8(ascii: "\"")) else { return nil }
        skipWhitespace()
        guard expect(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        let negative = expect(UInt8(ascii: "-"))
        let digitsStart = index
        while index < body.count, body[index] >= UInt8(ascii: "0"), body[index] <= UInt8(ascii: "9") {
            index += 1
        }
        let digits = index - digitsStart
        // Counted before any arithmetic: 18 digits cannot overflow Int, 19
        // can (multiplying as the digits came trapped on
        // 9223372036854775808, a one-request crash). A leading zero is not JSON.
        guard digits >= 1, digits <= 18, digits == 1 || body[digitsStart] != UInt8(ascii: "0") else { return nil }
        var magnitude = 0
        for position in digitsStart..<index {
            magnitude = magnitude * 10 + Int(body[position] - UInt8(ascii: "0"))
        }
        skipWhitespace()
        guard expect(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        guard index == body.count else { return nil }
        return negative ? -magnitude : magnitude
    }
}

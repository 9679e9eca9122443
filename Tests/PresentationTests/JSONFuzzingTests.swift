import Testing
@_spi(Fuzzing) @testable import Presentation

/// The fuzz target's check (`JSONFuzzing`, run at length by
/// `scripts/fuzz.sh --json`) on the hostile shapes of issue 9 and a fixed,
/// seeded set of mutations of them, in every test run.
@Suite struct JSONFuzzingTests {
    static let shapes: [String] = [
        #"{"quantity":3}"#, #"{"quantity":9223372036854775808}"#, #"{"quantity":-9223372036854775808}"#,
        #"{"quantity":99999999999999999999}"#, #"{"quantity":1e1}"#, #"{"quantity":1,"quantity":2}"#,
        #"{"quantity":3,}"#, "\u{FEFF}{\"quantity\":3}",
        #"{"name":"Alice","email":"alice@example.com","password":"correct horse battery"}"#,
        #"{"name":"e\#(String(repeating: "\u{301}", count: 2000))","email":"a@example.com","password":"correct horse battery"}"#,
        #"{"sku":"MUG-1","name":"Mug","price":{"amount":9223372036854775807,"currency":"USD"},"stock":1}"#,
        #"{"price":{"amount":1000000000001,"currency":"USD"},"stock":-1}"#, #"{"status":"shipped"}"#,
        #"{"status":"suspended","role":"admin"}"#, #"{"name":"\ud834\udd1e \ud800"}"#,
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    ]

    @Test(arguments: shapes)
    func hostileShapesBreakNoInvariant(_ body: String) {
        #expect(JSONFuzzing.violations(Array(body.utf8)) == [])
    }

    @Test func seededMutationsBreakNoInvariant() {
        // xorshift64: the same inputs on every run and platform.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        let interesting: [UInt8] = Array("{}[]:,\"\\u0-.eE9".utf8) + [0x00, 0x7F, 0x80, 0xC3, 0xCC, 0xED, 0xEF, 0xFF]
        var failures: [String] = []
        for iteration in 0..<3_000 {
            var bytes = Array(Self.shapes[next(Self.shapes.count)].utf8)
            for _ in 0..<(1 + next(4)) where !bytes.isEmpty {
                let position = next(bytes.count)
                switch next(3) {
                case 0: bytes[position] = interesting[next(interesting.count)]
                case 1: bytes.insert(interesting[next(interesting.count)], at: position)
                default: bytes.remove(at: position)
                }
            }
            let violations = JSONFuzzing.violations(bytes)
            if !violations.isEmpty { failures.append("iteration \(iteration): \(violations)") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
    }
}

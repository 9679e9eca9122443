import Domain
import Foundation
@testable import OrderClient
import Testing
import TestSupport

/// The stored order document (`OrderDocument`: `Order.json`, read by
/// `Order(json:)`): the text is the JSON value `JSONEncoder` makes of the
/// order, in the served member order (PresentationTests' OrderJSONTests pin
/// it byte for byte), and the reader returns nil or exactly what
/// `JSONDecoder` returns, on this writer's documents, on those earlier
/// versions stored (`JSONEncoder`'s, sorted or not) and on thousands of
/// mutations.
@Suite struct OrderDocumentTests {
    static let names: [String] = [
        "Mug", "", "say \"hi\"", #"back\slash"#, "a/b</script>", "tab\tnew\nline\r\u{8}\u{C}",
        String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self), "del\u{7F}", "\u{2028}line\u{2029}para",
        "Crème brûlée", "e\u{301}", "茶碗", "emoji 😀 family 👩‍👩‍👧", "\u{FEFF}bom", String(repeating: "long ", count: 60),
    ]
    static let amounts: [Int64] = [0, 1, -1, 1999, 1_000_000_000_001, .max, .min]
    static let instants: [Int64] = [Timestamp.minimum, Timestamp.maximum, 0, -1, 1, 951_782_400_000, 1_795_000_000_123]

    /// Every status, 0/1/3/many lines, with and without a checkout id, a
    /// shipping address (its lines 0 to 3, phone and email each or not),
    /// each awkward name, amount and instant at least once. Memberwise, as
    /// stored: JSONDecoder validates nothing beyond the members' types.
    static let orders: [Order] = {
        var orders: [Order] = []
        for (index, name) in names.enumerated() {
            let count = [0, 1, 3, 12][index % 4]
            let lines = (0..<count).map { position in
                OrderLine(productID: ProductID(UUID()), name: position == 0 ? name : names[(index + position) % names.count],
                          quantity: [1, 99, 0, -5, Int.max, Int.min][(index + position) % 6],
                          unitPrice: Money(amount: amounts[(index + position) % amounts.count], currency: .usd),
                          lineTotal: Money(amount: amounts[(index + 2 * position) % amounts.count], currency: .eur))
            }
            orders.append(Order(id: OrderID(UUID()), userID: UserID(UUID()),
                                status: OrderStatus.allCases[index % OrderStatus.allCases.count], lines: lines,
                                total: Money(amount: amounts[index % amounts.count], currency: index % 2 == 0 ? .usd : .eur),
                                createdAt: Timestamp(millisecondsSince1970: instants[index % instants.count]),
                                checkoutID: index % 3 == 0 ? nil : CheckoutID(UUID()),
                                shippingAddress: index % 4 == 1 ? nil : ShippingAddress(
                                    name: name, lines: Array(names.prefix(index % 4)), city: names[(index + 1) % names.count],
                                    postalCode: names[(index + 2) % names.count], country: "DE",
                                    phone: index % 3 == 0 ? nil : names[(index + 3) % names.count],
                                    email: index % 2 == 0 ? nil : names[(index + 4) % names.count])))
        }
        return orders
    }()

    static func encoded(_ order: Order, _ formatting: JSONEncoder.OutputFormatting = []) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        return Array(try encoder.encode(order))
    }

    static func fast(_ bytes: [UInt8]) -> Order? {
        bytes.withUnsafeBufferPointer { Order(json: $0) }
    }

    static func foundation(_ bytes: [UInt8]) -> Order? {
        try? JSONDecoder().decode(Order.self, from: Data(bytes))
    }

    @Test func textIsTheEncodersJSONValueInTheServedMemberOrder() throws {
        for order in Self.orders {
            let text = OrderDocument.text(order)
            #expect(Array(text.utf8) == order.json)
            let written = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
            let encoded = try JSONSerialization.jsonObject(with: Data(try Self.encoded(order))) as? NSDictionary
            #expect(written != nil && written == encoded, "\(text)")
        }
        let order = Self.orders[2]
        #expect(OrderDocument.text(order).hasPrefix("{\"id\":\"\(order.id)\",\"user_id\":\"\(order.userID)\",\"status\":"))
    }

    @Test func textReadsBackToTheSameOrderByBothReaders() throws {
        for order in Self.orders {
            let text = OrderDocument.text(order)
            #expect(OrderDocument.order(from: text) == order)
            #expect(try JSONDecoder().decode(Order.self, from: Data(text.utf8)) == order)
        }
    }

    /// Documents stored before: a default JSONEncoder's (members in a random
    /// order), and pretty-printed, sorted and unescaped-slash forms.
    @Test(arguments: [JSONEncoder.OutputFormatting(), .prettyPrinted, .sortedKeys, [.prettyPrinted, .sortedKeys],
                      .withoutEscapingSlashes])
    func encodersDocumentsReadAsJSONDecoderReadsThem(formatting: JSONEncoder.OutputFormatting) throws {
        for order in Self.orders {
            let bytes = try Self.encoded(order, formatting)
            #expect(Self.foundation(bytes) == order)
            #expect(Self.fast(bytes) == order, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// Forms JSONDecoder reads that the encoder never writes: escapes of
    /// every kind, upper-case hex and ids, a null checkout id, whitespace.
    @Test func escapesAndWhitespaceReadAsJSONDecoderReadsThem() throws {
        let document = """
             { "user_id" :"6BA7B810-9DAD-11D1-80B4-00C04FD430C8","checkout_id":null, "status":"shipped",
            "created_at":"2026-11-22T08:30:00.5+01:00","total":{"currency":"USD","amount":-0},
            \t"id":"6ba7b811-9dad-11d1-80b4-00c04fd430c8","items":[ {"quantity":2,"name":"\\u00E9\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\"\\\\\\u0000",
            "product_id":"6ba7b812-9dad-11d1-80b4-00c04fd430c8","line_total":{"amount":4,"currency":"USD"},
            "unit_price":{"currency":"USD","amount":2}} ]}\r\n
            """
        let expected = try #require(Self.foundation(Array(document.utf8)))
        #expect(expected.lines.first?.name == "éé😀/\u{8}\u{C}\n\r\t\"\\\u{0}")
        #expect(OrderDocument.order(from: document) == expected)
    }

    /// What the reader leaves to JSONDecoder although JSONDecoder reads it
    /// (whole numbers with a fraction or exponent, a repeated or unknown
    /// member, a trailing comma, a byte order mark): `decode` still answers
    /// JSONDecoder's order.
    @Test func decodeFallsBackToJSONDecoderForWhatTheReaderLeaves() throws {
        let order = Self.orders[1]
        #expect(order.lines.map(\.quantity) == [99])
        let text = OrderDocument.text(order)
        let variants = [
            text.replacingOccurrences(of: "\"quantity\":99,", with: "\"quantity\":99.0,"),
            text.replacingOccurrences(of: "\"quantity\":99,", with: "\"quantity\":9.9e1,"),
            "{\"status\":\"pending\"," + text.dropFirst(),
            "{\"note\":1," + text.dropFirst(),
            text.replacingOccurrences(of: "\"total\":{", with: "\"total\":{\"amount\":5,"),
            String(text.dropLast()) + ",}",
            "\u{FEFF}" + text,
        ]
        for variant in variants {
            #expect(variant != text)
            #expect(OrderDocument.order(from: variant) == nil, "\(variant)")
            let expected = try JSONDecoder().decode(Order.self, from: Data(variant.utf8))
            #expect(try OrderDocument.decode(variant) == expected)
            #expect(expected.lines.first?.quantity == 99)
        }
        #expect(throws: (any Error).self) { try OrderDocument.decode(String(text.dropLast())) }
    }

    /// Near misses JSONDecoder refuses: the reader must refuse them too.
    @Test func nearMissesAreRefusedByBothReaders() throws {
        let order = Self.orders[1]
        let text = OrderDocument.text(order)
        let name = "\"name\":" + String(decoding: Array(try JSONEncoder().encode(order.lines[0].name)), as: UTF8.self)
        let edits: [(String, String)] = [
            ("\"quantity\":99,", "\"quantity\":099,"), ("\"quantity\":99,", "\"quantity\":+99,"),
            ("\"quantity\":99,", "\"quantity\":-,"), ("\"quantity\":99,", "\"quantity\":9223372036854775808,"),
            ("\"quantity\":99,", "\"quantity\":\"99\","), ("\"quantity\":99,", "\"quantity\":null,"),
            (name, "\"name\":\"a\u{1}b\""), (name, "\"name\":\"\\ud800\""), (name, "\"name\":\"\\udc00\""),
            (name, "\"name\":\"\\ud800\\u0041\""), (name, "\"name\":\"\\x41\""), (name, "\"name\":\"\\u00g1\""),
            ("\"status\":\"", "\"status\":\"x"), ("\"currency\":\"USD\"", "\"currency\":\"usd\""),
            ("\"created_at\":\"", "\"created_at\":\"x"), ("\"id\":\"", "\"id\":\"x"), ("\"items\":[", "\"items\":[1,"),
            ("\"user_id\"", "\"user_id\"\u{C}"), ("],", "]"), ("\"total\":{", "\"total\":["),
        ]
        var documents = edits.map { edit in
            #expect(text.contains(edit.0), "\(edit.0)")
            return Array(text.replacingOccurrences(of: edit.0, with: edit.1).utf8)
        }
        documents += [Array(text.utf8) + Array("x".utf8), Array(text.utf8.dropLast()), Array(text.utf8) + [0x0C],
                      Array(text.replacingOccurrences(of: "\"name\":\"", with: "\"name\":\"\u{FF}").utf8).map { $0 == 0xC3 ? 0xFF : $0 }]
        for document in documents {
            #expect(Self.foundation(document) == nil, "\(String(decoding: document, as: UTF8.self))")
            #expect(Self.fast(document) == nil, "\(String(decoding: document, as: UTF8.self))")
        }
    }

    @Test func mutatedDocumentsNeverDisagreeWithJSONDecoder() throws {
        // A fixed seed: the same mutations on every run and platform.
        var generator = SplitMix64(seed: 0x2545_F491_4F6C_DD1D)
        func next(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
        var seeds: [[UInt8]] = []
        for order in Self.orders.prefix(8) {
            seeds.append(Array(OrderDocument.text(order).utf8))
            seeds.append(try Self.encoded(order))
            seeds.append(try Self.encoded(order, .sortedKeys))
            seeds.append(try Self.encoded(order, .prettyPrinted))
        }
        let interesting: [UInt8] = Array("{}[]:,\"\\/u0123456789-.eEnul \t\n\rabcdefABCDEF".utf8)
            + [0x00, 0x0C, 0x7F, 0x80, 0xC3, 0xE2, 0xED, 0xF0, 0xFF]
        var failures: [String] = []
        var agreed = 0, left = 0
        for iteration in 0..<4_000 {
            var bytes = seeds[next(seeds.count)]
            for _ in 0..<(1 + next(3)) where !bytes.isEmpty {
                let position = next(bytes.count)
                switch next(7) {
                case 0: bytes[position] = interesting[next(interesting.count)]
                case 1: bytes.insert(interesting[next(interesting.count)], at: position)
                case 2: bytes.remove(at: position)
                case 3: bytes.insert(contentsOf: [[0x20], [0x09, 0x0A], [0x0D], [0x0C], [0xC2, 0xA0]][next(5)], at: position)
                case 4: bytes = Array(bytes.prefix(position))
                case 5: bytes = Self.swappingMembers(bytes, next)
                default: bytes = Self.duplicatingMember(bytes, from: seeds[next(seeds.count)], next)
                }
            }
            let expected = Self.foundation(bytes)
            let fast = Self.fast(bytes)
            if let fast {
                if fast == expected { agreed += 1 } else {
                    failures.append("iteration \(iteration): \(String(decoding: bytes, as: UTF8.self))")
                }
            } else if expected != nil {
                left += 1
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        // Both outcomes occur: the mutations exercise acceptance and refusal.
        #expect(agreed > 100)
        #expect(left > 10)
    }

    /// The top-level members of an object document (split at commas outside
    /// strings and nested values), as byte ranges.
    static func members(_ bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var depth = 0, inString = false, escaped = false, start = 0
        for (index, byte) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth == 1 { start = index + 1 }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 1, index > start { ranges.append(start..<index) }
                depth -= 1
            case UInt8(ascii: ",") where depth == 1:
                ranges.append(start..<index)
                start = index + 1
            default: break
            }
        }
        return ranges
    }

    static func swappingMembers(_ bytes: [UInt8], _ next: (Int) -> Int) -> [UInt8] {
        let ranges = members(bytes)
        guard ranges.count >= 2 else { return bytes }
        let first = next(ranges.count - 1)
        let (a, b) = (ranges[first], ranges[first + 1 + next(ranges.count - first - 1)])
        return Array(bytes[..<a.lowerBound]) + Array(bytes[b]) + Array(bytes[a.upperBound..<b.lowerBound])
            + Array(bytes[a]) + Array(bytes[b.upperBound...])
    }

    /// `bytes` with a member of `donor` (another order's document, so
    /// mostly a member `bytes` has too, with another value) inserted.
    static func duplicatingMember(_ bytes: [UInt8], from donor: [UInt8], _ next: (Int) -> Int) -> [UInt8] {
        let ranges = members(bytes), donated = members(donor)
        guard !ranges.isEmpty, !donated.isEmpty else { return bytes }
        let member = donated[next(donated.count)]
        let at = ranges[next(ranges.count)].lowerBound
        return Array(bytes[..<at]) + Array(donor[member]) + [UInt8(ascii: ",")] + Array(bytes[at...])
    }
}

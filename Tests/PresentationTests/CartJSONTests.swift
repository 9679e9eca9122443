import Domain
import Formats
import Foundation
import Testing
@testable import Presentation

/// The hand-written cart document must be the document JSONEncoder makes of
/// the same quote (compared as parsed JSON: key order is not part of it).
@Suite struct CartJSONTests {
    private static func id(_ n: Int) -> ProductID {
        ProductID(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n))!)
    }

    private static func quote(names: [String], unavailable: [UnavailableLine] = [],
                              currency: Currency = .usd, stock: ((Int) -> Int?) = { _ in nil }) throws -> CartQuote {
        let lines = try names.enumerated().map { index, name in
            try PricedLine(productID: id(index), name: name, quantity: index % 99 + 1,
                           unitPrice: Money(amount: Int64(index) * 1999 + 1, currency: currency), stock: stock(index))
        }
        return CartQuote(priced: try PricedCart(lines: lines, currency: currency), unavailable: unavailable)
    }

    private static func parsed(_ bytes: [UInt8]) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    private static func expectSameAsJSONEncoder(_ quote: CartQuote) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let reference = try parsed(Array(try encoder.encode(quote)))
        let written = try parsed(CartJSON.bytes(quote))
        #expect(written == reference)
    }

    @Test func emptyCart() throws {
        try Self.expectSameAsJSONEncoder(try Self.quote(names: []))
        #expect(String(decoding: CartJSON.bytes(try Self.quote(names: [])), as: UTF8.self)
                == #"{"items":[],"total":{"amount":0,"currency":"USD"},"unavailable_items":[]}"#)
    }

    @Test func linesInOrderWithPricesAndTotals() throws {
        try Self.expectSameAsJSONEncoder(try Self.quote(names: (0..<25).map { "Product \($0)" }, currency: .eur))
    }

    @Test func availableQuantitiesOfEachLine() throws {
        let quote = try Self.quote(names: ["None", "Short", "Plenty"], stock: { [0, 1, 1_000_000][$0] })
        try Self.expectSameAsJSONEncoder(quote)
        let items = try #require(try Self.parsed(CartJSON.bytes(quote))["items"] as? [[String: Any]])
        #expect(items.map { $0["available_quantity"] as? Int } == [0, 1, 3])
    }

    @Test func namesThatNeedEscaping() throws {
        try Self.expectSameAsJSONEncoder(try Self.quote(names: [
            #"Quote " and backslash \"#, "new\nline\ttab\r", "control \u{01}\u{1F}", "slash / and ünïcödé ☕️",
            "line separator \u{2028} paragraph \u{2029}", "",
        ]))
    }

    @Test func unavailableLinesWithAndWithoutNames() throws {
        try Self.expectSameAsJSONEncoder(try Self.quote(names: ["Mug"], unavailable: [
            UnavailableLine(productID: Self.id(7), name: nil, quantity: 2, reason: .notFound),
            UnavailableLine(productID: Self.id(8), name: "Old \"lamp\"", quantity: 99, reason: .inactive),
        ]))
    }
}

@Suite struct JSONBytesTests {
    @Test(arguments: [Int64.min, -1_000_001, -10, -1, 0, 1, 9, 10, 1999, 1_000_000, Int64.max])
    func integersAsDecimal(_ value: Int64) {
        var json = JSONBytes(capacity: 0)
        json.integer(value)
        #expect(String(decoding: json.bytes, as: UTF8.self) == String(value))
    }

    @Test(arguments: ["plain", "", "quote \" and \\ backslash", "line\nbreak\r\ttab", "nul \u{0} bell \u{7}",
                      "del \u{7F}", "separators \u{2028} \u{2029}", "euro € and emoji 🧪", "/slashes/"])
    func stringsReadBackByAJSONParser(_ text: String) throws {
        var json = JSONBytes(capacity: 0)
        json.raw("[")
        json.string(text)
        json.raw("]")
        let decoded = try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String]
        #expect(decoded == [text])
    }
}

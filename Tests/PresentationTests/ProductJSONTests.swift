import Domain
import Foundation
import Testing
@testable import Presentation

/// The hand-written product document must be the document JSONEncoder
/// makes of the same product (compared as parsed JSON: key order is not
/// part of it), for plain text and for every kind of text that needs escaping.
@Suite struct ProductJSONTests {
    private static func product(name: String, description: String, sku: String = "SKU-1", amount: Int64 = 1999,
                                stock: Int = 7, active: Bool = true) -> Product {
        Product(id: ProductID(UUID(uuidString: "00000000-0000-4000-8000-000000000042")!), sku: sku, name: name,
                description: description, price: Money(amount: amount, currency: .eur), stock: stock, active: active)
    }

    private static func expectSameAsJSONEncoder(_ product: Product) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let reference = try #require(try JSONSerialization.jsonObject(with: encoder.encode(product)) as? NSDictionary)
        let written = try #require(try JSONSerialization.jsonObject(with: Data(ProductJSON.bytes(product))) as? NSDictionary)
        #expect(written == reference)
    }

    @Test func plainProduct() throws {
        let product = Self.product(name: "Brushed copper kettle", description: "Holds 1.5 l.")
        try Self.expectSameAsJSONEncoder(product)
        #expect(String(decoding: ProductJSON.bytes(product), as: UTF8.self) == """
            {"id":"00000000-0000-4000-8000-000000000042","sku":"SKU-1","name":"Brushed copper kettle",\
            "description":"Holds 1.5 l.","price":{"amount":1999,"currency":"EUR"},"stock":7,"active":true}
            """)
    }

    @Test func inactiveZeroAndLargeNumbers() throws {
        try Self.expectSameAsJSONEncoder(Self.product(name: "Old lamp", description: "", amount: 0, stock: 0, active: false))
        try Self.expectSameAsJSONEncoder(Self.product(name: "Dear", description: "x", amount: Product.maxPriceAmount,
                                                      stock: Product.stockRange.upperBound))
    }

    @Test func textThatNeedsEscaping() throws {
        try Self.expectSameAsJSONEncoder(Self.product(
            name: #"Quote " and backslash \"#, description: "new\nline\ttab\r control \u{01}\u{1F} \u{7F}",
            sku: "A\"B"))
        try Self.expectSameAsJSONEncoder(Self.product(
            name: "slash / and ünïcödé ☕️", description: "line separator \u{2028} paragraph \u{2029}"))
    }

    @Test func pagesWithAndWithoutACursor() throws {
        let products = [Self.product(name: "A \"lamp\"", description: "x"), Self.product(name: "B", description: "",
                                                                                     active: false)]
        for page in [ProductPage(items: products, nextCursor: "HWMwMjI-_w"), ProductPage(items: [], nextCursor: nil),
                     ProductPage(items: products, nextCursor: nil)] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            let reference = try #require(try JSONSerialization.jsonObject(with: encoder.encode(page)) as? NSDictionary)
            let written = try #require(try JSONSerialization.jsonObject(with: Data(ProductJSON.page(page))) as? NSDictionary)
            #expect(written == reference)
        }
        #expect(String(decoding: ProductJSON.page(ProductPage(items: [], nextCursor: nil)), as: UTF8.self)
                == #"{"items":[],"next_cursor":null}"#)
    }
}

import Domain
import Foundation
import Testing
@testable import Presentation

/// The hand-written product document must be the document JSONEncoder
/// makes of the same product (compared as parsed JSON: key order is not
/// part of it), for plain text and for every kind of text that needs
/// escaping: the admins' whole, the customers' without the stock alert
/// threshold.
@Suite struct ProductJSONTests {
    private static func product(name: String, description: String, sku: String = "SKU-1", amount: Int64 = 1999,
                                stock: Int = 7, active: Bool = true, threshold: Int? = nil) -> Product {
        Product(id: ProductID(UUID(uuidString: "00000000-0000-4000-8000-000000000042")!), sku: sku, name: name,
                description: description, price: Money(amount: amount, currency: .eur), stock: stock, active: active,
                lowStockThreshold: threshold)
    }

    /// JSONEncoder's document of `value`, parsed; for customers, each
    /// product without `low_stock_threshold`.
    private static func reference<T: Encodable>(_ value: T, for audience: ProductJSON.Audience) throws -> NSDictionary {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let parsed = try #require(try JSONSerialization.jsonObject(with: encoder.encode(value)) as? [String: Any])
        guard audience == .customers else { return parsed as NSDictionary }
        func storefront(_ product: Any) -> Any {
            guard var fields = product as? [String: Any] else { return product }
            fields["low_stock_threshold"] = nil
            return fields
        }
        if let items = parsed["items"] as? [Any] {
            var page = parsed
            page["items"] = items.map(storefront)
            return page as NSDictionary
        }
        return try #require(storefront(parsed) as? [String: Any]) as NSDictionary
    }

    private static func expectSameAsJSONEncoder(_ product: Product) throws {
        for audience in [ProductJSON.Audience.customers, .admins] {
            let written = try #require(try JSONSerialization.jsonObject(
                with: Data(ProductJSON.bytes(product, for: audience))) as? NSDictionary)
            #expect(written == (try reference(product, for: audience)))
        }
        let storefront = try #require(try JSONSerialization.jsonObject(with: Data(ProductJSON.bytes(product))) as? [String: Any])
        #expect(storefront["low_stock_threshold"] == nil, "customers do not see the threshold")
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
        try Self.expectSameAsJSONEncoder(Self.product(name: "Alerting", description: "", threshold: 0))
        try Self.expectSameAsJSONEncoder(Self.product(name: "Alerting", description: "", active: false,
                                                      threshold: Product.stockRange.upperBound))
        #expect(String(decoding: ProductJSON.bytes(Self.product(name: "A", description: "", threshold: 3), for: .admins),
                       as: UTF8.self).hasSuffix(#","stock":7,"active":true,"low_stock_threshold":3}"#))
        #expect(String(decoding: ProductJSON.bytes(Self.product(name: "A", description: ""), for: .admins),
                       as: UTF8.self).hasSuffix(#","active":true,"low_stock_threshold":null}"#))
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
                                                                                     active: false, threshold: 2)]
        for page in [ProductPage(items: products, nextCursor: "HWMwMjI-_w"), ProductPage(items: [], nextCursor: nil),
                     ProductPage(items: products, nextCursor: nil)] {
            for audience in [ProductJSON.Audience.customers, .admins] {
                let written = try #require(try JSONSerialization.jsonObject(
                    with: Data(ProductJSON.page(page, for: audience))) as? NSDictionary)
                #expect(written == (try Self.reference(page, for: audience)))
            }
        }
        #expect(String(decoding: ProductJSON.page(ProductPage(items: [], nextCursor: nil)), as: UTF8.self)
                == #"{"items":[],"next_cursor":null}"#)
    }
}

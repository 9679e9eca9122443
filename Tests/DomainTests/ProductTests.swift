import Domain
import Foundation
import Testing

@Suite struct ProductTests {
    @Test func validateReportsEveryFailingField() {
        let product = Product(id: ProductID(uuid(1)), sku: "bad sku", name: "",
                              description: String(repeating: "d", count: 2001), price: dollars(-1), stock: -1)
        let errors = product.validate()
        #expect(errors?.fields == ["sku", "name", "description", "price.amount", "stock"])
        #expect(errors?.errors.map(\.code) == [.invalidFormat, .required, .tooLong, .outOfRange, .outOfRange])
    }

    @Test(arguments: [
        ("A", nil), ("SKU-001_X", nil), (String(repeating: "A", count: 64), nil),
        ("", FieldError.Code.required), (String(repeating: "A", count: 65), .tooLong),
        ("sku-1", .invalidFormat), ("SKU 1", .invalidFormat), ("SKU.1", .invalidFormat), ("ÄBC", .invalidFormat),
    ] as [(String, FieldError.Code?)])
    func skuPattern(sku: String, code: FieldError.Code?) {
        #expect(makeProduct(1, sku: sku).validate()?.codes(for: "sku").first == code)
    }

    @Test func boundaries() {
        #expect(makeProduct(1, price: 0, stock: 0).validate() == nil)
        #expect(makeProduct(1, stock: 1_000_000).validate() == nil)
        #expect(makeProduct(1, stock: 1_000_001).validate()?.codes(for: "stock") == [.outOfRange])
        let named = Product(id: ProductID(uuid(1)), sku: "S", name: String(repeating: "n", count: 200),
                            description: String(repeating: "line\n", count: 400), price: dollars(1))
        #expect(named.validate() == nil)
        let tooLong = Product(id: ProductID(uuid(1)), sku: "S", name: String(repeating: "n", count: 201),
                              description: "bell\u{7}", price: dollars(1))
        #expect(tooLong.validate()?.fields == ["name", "description"])
    }

    @Test func reserveAndReleaseKeepStockInRange() throws {
        let product = makeProduct(1, stock: 3)
        let reserved = try product.reserving(2)
        #expect(reserved.stock == 1)
        #expect(try reserved.reserving(1).stock == 0)
        #expect(domainError { () throws in try reserved.reserving(2) }
            == CatalogError.insufficientStock(productID: product.id, requested: 2, available: 1))
        #expect(CatalogError.insufficientStock(productID: product.id, requested: 2, available: 1).code == "insufficient_stock")
        #expect(validationError { () throws in try product.reserving(0) }?.codes(for: "quantity") == [.outOfRange])
        #expect(validationError { () throws in try product.reserving(-5) } != nil)
        #expect(domainError { () throws in try product.deactivated().reserving(1) } == CatalogError.productInactive(product.id))
        #expect(try reserved.releasing(2) == product)
        #expect(try product.deactivated().releasing(1).stock == 4)  // returns still land on inactive products
        #expect(validationError { () throws in try product.releasing(0) } != nil)
        let full = makeProduct(1, stock: 1_000_000)
        #expect(validationError { () throws in try full.releasing(1) }?.codes(for: "stock") == [.outOfRange])
        #expect(validationError { () throws in try full.restocked(by: Int.max) }?.codes(for: "stock") == [.outOfRange])
    }

    @Test func neverNegativeAcrossManyReservations() throws {
        var product = makeProduct(1, stock: 10)
        var granted = 0
        for _ in 0 ..< 100 {
            if let next = try? product.reserving(1) {
                product = next
                granted += 1
            }
        }
        #expect(granted == 10 && product.stock == 0)
    }

    @Test func otherBusinessMethods() throws {
        let product = makeProduct(1, stock: 5)
        #expect(try product.restocked(by: 5).stock == 10)
        #expect(!product.deactivated().active && product.deactivated().activated() == product)
        let soldOut = makeProduct(2, stock: 0)
        #expect(product.isAvailable && !product.deactivated().isAvailable && !soldOut.isAvailable)
    }

    @Test func patchAppliesWithValidation() throws {
        let product = makeProduct(1)
        #expect(try ProductPatch().applied(to: product) == product && ProductPatch().isEmpty)
        let changed = try ProductPatch(name: "  Gadget ", price: dollars(5), stock: 7, active: false).applied(to: product)
        #expect(changed.name == "Gadget" && changed.price == dollars(5) && changed.stock == 7 && !changed.active)
        #expect(changed.sku == product.sku && changed.description == product.description && changed.id == product.id)
        let bad = ProductPatch(name: "", description: String(repeating: "x", count: 2001), price: dollars(-1), stock: -3)
        #expect(validationError { () throws in try bad.applied(to: product) }?.fields
            == ["name", "description", "price.amount", "stock"])
        let decoded = try JSONDecoder().decode(ProductPatch.self, from: Data(#"{"stock":4}"#.utf8))
        #expect(decoded == ProductPatch(stock: 4))
    }

    @Test func draftMakesAProductAndDefaults() throws {
        let json = #"{"sku":"W-1","name":" Widget ","price":{"amount":250,"currency":"USD"}}"#
        let draft = try JSONDecoder().decode(ProductDraft.self, from: Data(json.utf8))
        #expect(draft.validate() == nil)
        let product = try draft.makeProduct(id: ProductID(uuid(9)))
        #expect(product == Product(id: ProductID(uuid(9)), sku: "W-1", name: "Widget", description: "",
                                   price: dollars(250), stock: 0, active: true))
        let bad = ProductDraft(sku: "", name: "", price: dollars(-1), stock: 2_000_000)
        #expect(bad.validate()?.fields == ["sku", "name", "price.amount", "stock"])
        #expect(validationError { () throws in try bad.makeProduct(id: ProductID(uuid(9))) } == bad.validate())
    }

    @Test func codesWithAPIKeys() throws {
        let product = makeProduct(1)
        let (decoded, json) = try roundTrip(product)
        #expect(decoded == product)
        #expect(json == #"{"active":true,"description":"A widget.","id":"00000000-0000-0000-0000-000000000001","low_stock_threshold":null,"name":"Widget","price":{"amount":1999,"currency":"USD"},"sku":"SKU-1","stock":10}"#)
        let alerting = Product(id: product.id, sku: product.sku, name: product.name, description: product.description,
                               price: product.price, stock: product.stock, lowStockThreshold: 3)
        #expect(try roundTrip(alerting).0 == alerting)
        // The public document has no threshold: it reads as none.
        let storefront = #"{"id":"00000000-0000-0000-0000-000000000001","sku":"SKU-1","name":"Widget","description":"","price":{"amount":1,"currency":"USD"},"stock":0,"active":true}"#
        #expect(try JSONDecoder().decode(Product.self, from: Data(storefront.utf8)).lowStockThreshold == nil)
    }

    @Test func theStockAlertThresholdIsOptionalBoundedAndCrossedOnlyFromAbove() throws {
        func product(stock: Int, threshold: Int?) -> Product {
            Product(id: ProductID(uuid(1)), sku: "S", name: "n", price: dollars(1), stock: stock,
                    lowStockThreshold: threshold)
        }
        #expect(product(stock: 1, threshold: 0).validate() == nil)
        #expect(product(stock: 1, threshold: 1_000_000).validate() == nil)
        #expect(product(stock: 1, threshold: -1).validate()?.codes(for: "low_stock_threshold") == [.outOfRange])
        #expect(product(stock: 1, threshold: 1_000_001).validate()?.codes(for: "low_stock_threshold") == [.outOfRange])
        // Above → at, above → below: crossed. Below → lower, at → at, up: not. No threshold: never.
        #expect(product(stock: 5, threshold: 5).fellToLowStock(from: 6))
        #expect(product(stock: 0, threshold: 5).fellToLowStock(from: 100))
        #expect(!product(stock: 3, threshold: 5).fellToLowStock(from: 4))
        #expect(!product(stock: 5, threshold: 5).fellToLowStock(from: 5))
        #expect(!product(stock: 6, threshold: 5).fellToLowStock(from: 2))
        #expect(!product(stock: 0, threshold: nil).fellToLowStock(from: 10))
        #expect(product(stock: 0, threshold: 0).fellToLowStock(from: 1))
    }

    @Test func aPatchKeepsClearsOrSetsTheThreshold() throws {
        func decode(_ json: String) throws -> ProductPatch {
            try JSONDecoder().decode(ProductPatch.self, from: Data(json.utf8))
        }
        let alerting = Product(id: ProductID(uuid(1)), sku: "S", name: "n", price: dollars(1), stock: 9,
                               lowStockThreshold: 4)
        #expect(try decode(#"{"stock":4}"#).lowStockThreshold == .keep)
        #expect(try decode(#"{"low_stock_threshold":null}"#) == ProductPatch(lowStockThreshold: .clear))
        #expect(try decode(#"{"low_stock_threshold":7}"#) == ProductPatch(lowStockThreshold: .set(7)))
        #expect(!ProductPatch(lowStockThreshold: .clear).isEmpty)
        #expect(try ProductPatch(stock: 2).applied(to: alerting).lowStockThreshold == 4)
        #expect(try ProductPatch(lowStockThreshold: .clear).applied(to: alerting).lowStockThreshold == nil)
        #expect(try ProductPatch(lowStockThreshold: .set(0)).applied(to: alerting).lowStockThreshold == 0)
        #expect(validationError { () throws in try ProductPatch(lowStockThreshold: .set(-2)).applied(to: alerting) }?
            .fields == ["low_stock_threshold"])
        let draft = try JSONDecoder().decode(ProductDraft.self, from: Data(
            #"{"sku":"W-1","name":"W","price":{"amount":1,"currency":"USD"},"low_stock_threshold":null}"#.utf8))
        #expect(draft.lowStockThreshold == nil && draft.validate() == nil)
        #expect(ProductDraft(sku: "W-1", name: "W", price: dollars(1), lowStockThreshold: 1_000_001).validate()?.fields
                == ["low_stock_threshold"])
    }
}

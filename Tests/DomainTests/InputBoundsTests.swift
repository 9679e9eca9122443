import Domain
import Testing

/// The bounds that keep every request's numbers and text in range (issue 9):
/// prices and quantities small enough that no cart or order total can leave
/// Int64, and text limited in bytes and combining marks as well as
/// characters, in NFC.
@Suite struct InputBoundsTests {
    @Test func priceIsBoundedSoThatNoCartTotalOverflows() throws {
        #expect(makeProduct(1, price: Product.maxPriceAmount).validate() == nil)
        #expect(makeProduct(1, price: Product.maxPriceAmount + 1).validate()?.codes(for: "price.amount") == [.outOfRange])
        #expect(makeProduct(1, price: .max).validate()?.codes(for: "price.amount") == [.outOfRange])
        // The largest cart: every line at the largest quantity and price.
        let quantity = CartLine.quantityRange.upperBound
        let lines = try (0..<Cart.maxLines).map { index in
            try PricedLine(productID: ProductID(uuid(index + 1)), name: "P", quantity: quantity,
                           unitPrice: dollars(Product.maxPriceAmount))
        }
        let total = try PricedCart(lines: lines, currency: .usd).total
        #expect(total.amount == Int64(Cart.maxLines) * Int64(quantity) * Product.maxPriceAmount)
        #expect(total.amount <= Int64.max / 900)
    }

    @Test func oneLetterWithManyCombiningMarksIsRefused() throws {
        // 200 KB that was one Character, and passed a 100-character limit.
        let name = "a" + String(repeating: "\u{301}", count: 100_000)
        let errors = NewUserRequest(name: name, email: "a@example.com", password: "correct horse battery").validate()
        #expect(errors?.codes(for: "name") == [.tooLong])
        // Within the byte limit, but more marks on one letter than UAX #15's stream-safe 30.
        let stacked = "a" + String(repeating: "\u{301}", count: 31)
        #expect(NewUserRequest(name: stacked, email: "a@example.com", password: "correct horse battery").validate()?
            .codes(for: "name") == [.invalidFormat])
        let fine = "a" + String(repeating: "\u{301}", count: 30)
        #expect(NewUserRequest(name: fine, email: "a@example.com", password: "correct horse battery").validate() == nil)
    }

    @Test func textIsLimitedInBytesAsWellAsCharacters() {
        // 100 characters of 25 bytes each (a family emoji): within the
        // character limit, beyond 4 bytes per character.
        let family = "👨‍👩‍👧‍👦"
        #expect(family.utf8.count == 25)
        let name = String(repeating: family, count: 100)
        #expect(NewUserRequest(name: name, email: "a@example.com", password: "correct horse battery").validate()?
            .codes(for: "name") == [.tooLong])
        let product = Product(id: ProductID(uuid(1)), sku: "S", name: "n", description: String(repeating: family, count: 400),
                              price: dollars(1))
        #expect(product.validate()?.codes(for: "description") == [.tooLong])
    }

    @Test func namesAreStoredInNFC() throws {
        let decomposed = "Cafe\u{301} Ame\u{301}lie"
        let user = try NewUserRequest(name: "  \(decomposed) ", email: "a@example.com", password: "correct horse battery")
            .makeUser(id: UserID(uuid(1)), createdAt: t0)
        #expect(Array(user.name.unicodeScalars) == Array("Caf\u{E9} Am\u{E9}lie".unicodeScalars))
        let product = try ProductDraft(sku: "S", name: decomposed, description: "Cre\u{300}me", price: dollars(1))
            .makeProduct(id: ProductID(uuid(2)))
        #expect(Array(product.name.unicodeScalars) == Array("Caf\u{E9} Am\u{E9}lie".unicodeScalars))
        #expect(Array(product.description.unicodeScalars) == Array("Cr\u{E8}me".unicodeScalars))
        let renamed = try ProductPatch(name: "Nai\u{308}ve").applied(to: product)
        #expect(Array(renamed.name.unicodeScalars) == Array("Na\u{EF}ve".unicodeScalars))
    }
}

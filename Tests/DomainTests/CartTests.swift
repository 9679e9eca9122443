import Domain
import Foundation
import Testing

@Suite struct CartTests {
    let user = UserID(uuid(100))
    let a = ProductID(uuid(1)), b = ProductID(uuid(2)), c = ProductID(uuid(3))

    @Test(arguments: [1, 2, 50, 99])
    func acceptsQuantitiesInRange(quantity: Int) throws {
        #expect(try Cart(userID: user).settingQuantity(quantity, for: a).quantity(of: a) == quantity)
    }

    @Test(arguments: [Int.min, -1, 0, 100, Int.max])
    func refusesQuantitiesOutOfRange(quantity: Int) {
        let errors = validationError { () throws in try Cart(userID: user).settingQuantity(quantity, for: a) }
        #expect(errors?.codes(for: "quantity") == [.outOfRange])
    }

    @Test func linesKeepInsertionOrder() throws {
        var cart = Cart(userID: user)
        cart = try cart.settingQuantity(1, for: b).settingQuantity(2, for: a).settingQuantity(3, for: c)
        cart = try cart.settingQuantity(9, for: b)  // replaced in place, not moved
        #expect(cart.lines.map(\.productID) == [b, a, c])
        #expect(cart.lines.map(\.quantity) == [9, 2, 3])
        let removed = cart.removing(a)
        #expect(removed.lines.map(\.productID) == [b, c])
        #expect(removed.removing(a) == removed)  // removing an absent line changes nothing
        #expect(cart.cleared().isEmpty && cart.cleared().userID == user && !cart.isEmpty)
        #expect(cart.quantity(of: ProductID(uuid(42))) == nil)
    }

    @Test func removingOrderedLinesKeepsLinesTheOrderDoesNotHoldAsTheyAre() throws {
        let cart = try Cart(userID: user).settingQuantity(2, for: a).settingQuantity(1, for: b).settingQuantity(3, for: c)
        #expect(cart.removingOrdered(cart.lines).isEmpty)
        let ordered = [CartLine(productID: a, quantity: 2), CartLine(productID: c, quantity: 1), CartLine(productID: ProductID(uuid(9)), quantity: 1)]
        let left = cart.removingOrdered(ordered)
        #expect(left.lines == [CartLine(productID: b, quantity: 1), CartLine(productID: c, quantity: 3)])
        #expect(left.userID == user)
        #expect(cart.removingOrdered([]) == cart)
    }

    @Test func cartSizeIsBounded() throws {
        var cart = Cart(userID: user)
        for n in 1 ... Cart.maxLines { cart = try cart.settingQuantity(1, for: ProductID(uuid(n))) }
        #expect(cart.validate() == nil)
        #expect(try cart.settingQuantity(5, for: ProductID(uuid(1))).quantity(of: ProductID(uuid(1))) == 5)
        let errors = validationError { () throws in try cart.settingQuantity(1, for: ProductID(uuid(1000))) }
        #expect(errors?.codes(for: "items") == [.tooLong])
    }

    @Test func validateReportsEveryBadLine() {
        let cart = Cart(userID: user, lines: [CartLine(productID: a, quantity: 0), CartLine(productID: b, quantity: 1),
                                              CartLine(productID: a, quantity: 100)])
        #expect(cart.validate()?.fields == ["items[0].quantity", "items[2].quantity", "items[2].product_id"])
        #expect(cart.validate()?.errors.map(\.code) == [.outOfRange, .outOfRange, .inconsistent])
    }

    @Test func stateHoldsOneCartPerUserAndDropsEmptyOnes() throws {
        var state = CartState()
        let other = UserID(uuid(101))
        #expect(state.cart(for: user).isEmpty)
        try state.store(try state.cart(for: user).settingQuantity(2, for: a))
        try state.store(try state.cart(for: other).settingQuantity(1, for: b))
        #expect(state.cart(for: user).quantity(of: a) == 2 && state.cart(for: other).quantity(of: b) == 1)
        try state.store(state.cart(for: user).cleared())
        #expect(state.count == 1 && state.carts[user] == nil)
        let bad = Cart(userID: user, lines: [CartLine(productID: a, quantity: 0)])
        #expect(validationError { () throws in try state.store(bad) } != nil)
        #expect(state == (try CartState(carts: [state.cart(for: other)])))
    }

    @Test func pricedCartTotalsLines() throws {
        let lines = [try PricedLine(productID: a, name: "A", quantity: 3, unitPrice: dollars(250)),
                     try PricedLine(productID: b, name: "B", quantity: 1, unitPrice: dollars(1999))]
        #expect(lines[0].lineTotal == dollars(750))
        let priced = try PricedCart(lines: lines, currency: .usd)
        #expect(priced.total == dollars(2749) && !priced.isEmpty)
        #expect(try PricedCart(lines: [], currency: .usd).total == dollars(0))
        #expect(domainError { () throws in try PricedCart(lines: lines, currency: .eur) } == CurrencyMismatch(.eur, .usd))
        #expect(domainError { () throws in try PricedLine(productID: a, name: "A", quantity: 2, unitPrice: dollars(.max)) } == Overflow())
        let (decoded, json) = try roundTrip(PricedCart(lines: [lines[0]], currency: .usd))
        #expect(decoded.lines == [lines[0]])
        #expect(json == #"{"items":[{"line_total":{"amount":750,"currency":"USD"},"name":"A","product_id":"00000000-0000-0000-0000-000000000001","quantity":3,"unit_price":{"amount":250,"currency":"USD"}}],"total":{"amount":750,"currency":"USD"}}"#)
    }

    @Test func cartCodesWithSnakeCaseKeys() throws {
        let cart = try Cart(userID: user).settingQuantity(2, for: a)
        let (decoded, json) = try roundTrip(cart)
        #expect(decoded == cart)
        #expect(json == #"{"items":[{"product_id":"00000000-0000-0000-0000-000000000001","quantity":2}],"user_id":"00000000-0000-0000-0000-000000000064"}"#)
    }
}

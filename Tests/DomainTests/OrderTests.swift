import Domain
import Foundation
import Testing

@Suite struct OrderTests {
    let user = UserID(uuid(100))
    let a = ProductID(uuid(1)), b = ProductID(uuid(2))

    func pricedCart() throws -> PricedCart {
        try PricedCart(lines: [try PricedLine(productID: a, name: "Widget", quantity: 2, unitPrice: dollars(1999)),
                               try PricedLine(productID: b, name: "Gadget", quantity: 1, unitPrice: dollars(500))],
                       currency: .usd)
    }

    func placed() throws -> Order {
        try Order.place(id: OrderID(uuid(50)), userID: user, cart: pricedCart(), createdAt: t0,
                        checkoutID: CheckoutID(uuid(60)))
    }

    @Test func placingFreezesLinesAndStartsPending() throws {
        let order = try placed()
        #expect(order.status == .pending && order.userID == user && order.checkoutID == CheckoutID(uuid(60)))
        #expect(order.lines.map(\.lineTotal) == [dollars(3998), dollars(500)])
        #expect(order.total == dollars(4498))
        #expect(order.validate() == nil)
    }

    @Test func placingAnEmptyCartIsRefused() throws {
        let empty = try PricedCart(lines: [], currency: .usd)
        let error = domainError { () throws in
            try Order.place(id: OrderID(uuid(1)), userID: user, cart: empty, createdAt: t0)
        }
        #expect(error == CartError.emptyCart && error?.code == "empty_cart" && error?.category == .conflict)
    }

    @Test func validateReportsEveryBrokenInvariant() {
        let lines = [
            OrderLine(productID: a, name: "", quantity: 0, unitPrice: dollars(-1), lineTotal: dollars(7)),
            OrderLine(productID: a, name: "Euro", quantity: 1, unitPrice: Money(amount: 1, currency: .eur),
                      lineTotal: Money(amount: 1, currency: .eur)),
        ]
        let order = Order(id: OrderID(uuid(1)), userID: user, status: .pending, lines: lines, total: dollars(8),
                          createdAt: t0)
        let errors = order.validate()
        #expect(errors?.fields == ["items[0].name", "items[0].quantity", "items[0].unit_price.amount",
                                   "items[0].line_total", "items[1].product_id", "items[1].unit_price.currency",
                                   "total"])
        #expect(errors?.codes(for: "total") == [.outOfRange])  // mixed currencies cannot be summed
        let empty = Order(id: OrderID(uuid(1)), userID: user, status: .pending, lines: [], total: dollars(0), createdAt: t0)
        #expect(empty.validate()?.codes(for: "items") == [.required])
        let wrongTotal = Order(id: OrderID(uuid(1)), userID: user, status: .pending,
                               lines: [OrderLine(productID: a, name: "A", quantity: 1, unitPrice: dollars(5), lineTotal: dollars(5))],
                               total: dollars(6), createdAt: t0)
        #expect(wrongTotal.validate()?.codes(for: "total") == [.inconsistent])
    }

    @Test func lifecycleFollowsTheTable() throws {
        let order = try placed()
        let confirmed = try order.confirmed()
        #expect(confirmed.status == .confirmed && confirmed.lines == order.lines && confirmed.id == order.id)
        #expect(domainError { () throws in try confirmed.shipped() } == OrderError.shippingAddressRequired(order.id))
        let delivered = try confirmed.addressed(to: Self.address).shipped().delivered()
        #expect(delivered.shippingAddress == Self.address)
        #expect(delivered.status == .delivered)
        #expect(domainError { () throws in try delivered.cancelled(by: .admin) }
            == OrderError.illegalTransition(from: .delivered, to: .cancelled))
        #expect(try order.cancelled(by: .customer).status == .cancelled)
        #expect(try confirmed.cancelled(by: .customer).status == .cancelled)
        #expect(domainError { () throws in try order.shipped() } == OrderError.illegalTransition(from: .pending, to: .shipped))
        #expect(domainError { () throws in try confirmed.transitioned(to: .shipped, by: .customer) }
            == OrderError.illegalTransition(from: .confirmed, to: .shipped))
        #expect(order.isCancellable && !delivered.isCancellable)
    }

    static let address = ShippingAddress(name: "Ana López", lines: ["Calle Mayor 1"], city: "Madrid",
                                         postalCode: "28013", country: "ES", phone: "+34910000000")

    @Test func aShippingAddressIsValidatedAndLockedOnceShippedOrCancelled() throws {
        let order = try placed()
        #expect(order.shippingAddress == nil)
        let addressed = try order.addressed(to: Self.address)
        #expect(addressed.shippingAddress == Self.address && addressed.status == .pending)
        let bad = ShippingAddress(name: "", lines: ["a", "b", "c", "d"], city: " Madrid", postalCode: "28 013-",
                                  country: "es", phone: "0049", email: "not an email")
        let failure = domainError { () throws in try order.addressed(to: bad) }
        guard let errors = failure as? ValidationError else {
            Issue.record("expected a validation failure, got \(String(describing: failure))")
            return
        }
        #expect(Set(errors.fields) == ["shipping_address.name", "shipping_address.lines", "shipping_address.city",
                                       "shipping_address.postal_code", "shipping_address.country",
                                       "shipping_address.phone", "shipping_address.email"])
        let noContact = ShippingAddress(name: "Ana", lines: ["Calle 1"], city: "Madrid", postalCode: "28013", country: "ES")
        #expect(noContact.validate()?.fields == ["phone"])
        let shipped = try addressed.confirmed().shipped()
        #expect(domainError { () throws in try shipped.addressed(to: Self.address) }
            == OrderError.shippingAddressLocked(order.id, status: .shipped))
        let cancelled = try order.cancelled(by: .customer)
        #expect(domainError { () throws in try cancelled.addressed(to: Self.address) }
            == OrderError.shippingAddressLocked(order.id, status: .cancelled))
    }

    @Test func codesWithAPIKeys() throws {
        let order = try placed()
        let (decoded, json) = try roundTrip(order)
        #expect(decoded == order)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(Set(object?.keys ?? [:].keys) == ["id", "user_id", "status", "items", "total", "created_at", "checkout_id"])
        let item = (object?["items"] as? [[String: Any]])?.first
        #expect(Set(item?.keys ?? [:].keys) == ["product_id", "name", "quantity", "unit_price", "line_total"])
        #expect(object?["status"] as? String == "pending" && object?["created_at"] as? String == "2026-11-18T11:06:40.000Z")
        let noCheckout = try Order.place(id: OrderID(uuid(1)), userID: user, cart: pricedCart(), createdAt: t0)
        #expect(try roundTrip(noCheckout).0 == noCheckout)
    }
}

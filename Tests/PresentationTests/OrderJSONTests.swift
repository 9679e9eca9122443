import Domain
import Foundation
import Testing
@testable import Presentation

/// The hand-written order documents must be byte for byte what
/// `JSONBody.encode` (`OrderedJSONEncoder` over the `Codable`
/// conformances) writes for the same value: clients see the member order,
/// and the ETag is a hash of these bytes. A member dropped, renamed,
/// reordered or written in another form fails the comparison.
@Suite struct OrderJSONTests {
    private static func uuid(_ kind: Int, _ n: Int) -> UUID {
        UUID(uuidString: String(format: "%08d-0000-7000-8000-%012d", kind, n))!
    }

    private static func line(_ n: Int, name: String, quantity: Int = 2, unitPrice: Int64 = 1999,
                             currency: Currency = .usd) -> OrderLine {
        let price = Money(amount: unitPrice, currency: currency)
        return OrderLine(productID: ProductID(uuid(171, n)), name: name, quantity: quantity, unitPrice: price,
                         lineTotal: Money(amount: unitPrice &* Int64(quantity), currency: currency))
    }

    /// Memberwise, unvalidated: the documents must be written for whatever
    /// a stored row holds, zero lines and negative amounts too.
    private static func order(_ lines: [OrderLine], status: OrderStatus = .pending, total: Int64? = nil,
                              milliseconds: Int64 = 1_795_336_200_123, checkout: Bool = true,
                              currency: Currency = .usd) -> Order {
        let sum = total ?? lines.reduce(Int64(0)) { $0 &+ $1.lineTotal.amount }
        return Order(id: OrderID(uuid(13, lines.count)), userID: UserID(uuid(5, 1)), status: status,
                     lines: lines, total: Money(amount: sum, currency: currency),
                     createdAt: Timestamp(millisecondsSince1970: milliseconds),
                     checkoutID: checkout ? CheckoutID(uuid(192, 9)) : nil)
    }

    private static func payment(for order: Order, status: PaymentStatus = .requiresPayment,
                                method: PaymentMethod = .provider, reference: String? = nil,
                                expiresAt: Int64 = 1_795_337_100_000) -> Payment {
        // Paid for a status that took the money, refunded for `refunded`:
        // every derived member meets a value besides zero somewhere.
        let paid = [.succeeded, .refundPending, .refunded].contains(status) ? order.total.amount : 0
        return Payment(id: PaymentID(uuid(250, 3)), orderID: order.id, userID: order.userID, status: status,
                       amount: order.total, method: method, expiresAt: Timestamp(millisecondsSince1970: expiresAt),
                       reference: reference, paid: paid, refunded: status == .refunded ? paid : 0)
    }

    private static let escaping = [
        #"Quote " and backslash \"#, "new\nline\ttab\r", "control \u{00}\u{01}\u{1F} del \u{7F}",
        "slash / and ünïcödé ☕️ 🧪", "line separator \u{2028} paragraph \u{2029}", "",
    ]

    /// Byte equality with the old encoder, and (so that a failure says
    /// more than "bytes differ") the same parsed JSON value.
    private static func expectSameAsJSONBody<T: Encodable>(_ value: T, _ written: [UInt8]) throws {
        let reference = try JSONBody.encode(value)
        let parsedReference = try JSONSerialization.jsonObject(with: Data(reference)) as? NSDictionary
        let parsedWritten = try JSONSerialization.jsonObject(with: Data(written)) as? NSDictionary
        #expect(parsedWritten != nil)
        #expect(parsedWritten == parsedReference)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: reference, as: UTF8.self))
    }

    private static func expectSame(_ order: Order) throws {
        try expectSameAsJSONBody(order, OrderJSON.bytes(order))
    }

    private static func expectSame(_ order: OrderWithPayment) throws {
        try expectSameAsJSONBody(order, OrderJSON.bytes(order))
    }

    @Test func orderPinnedToItsDocument() throws {
        let order = Self.order([Self.line(1, name: "Kettle")])
        try Self.expectSame(order)
        #expect(String(decoding: OrderJSON.bytes(order), as: UTF8.self) == """
            {"id":"00000013-0000-7000-8000-000000000001","user_id":"00000005-0000-7000-8000-000000000001",\
            "status":"pending","items":[{"product_id":"00000171-0000-7000-8000-000000000001","name":"Kettle",\
            "quantity":2,"unit_price":{"amount":1999,"currency":"USD"},"line_total":{"amount":3998,"currency":"USD"}}],\
            "total":{"amount":3998,"currency":"USD"},"created_at":"2026-11-22T08:30:00.123Z",\
            "checkout_id":"00000192-0000-7000-8000-000000000009"}
            """)
    }

    @Test(arguments: OrderStatus.allCases)
    func everyStatusWithAndWithoutPayment(_ status: OrderStatus) throws {
        let order = Self.order([Self.line(1, name: "Mug"), Self.line(2, name: "Lamp", quantity: 99)], status: status)
        try Self.expectSame(order)
        try Self.expectSame(OrderWithPayment(order: order, payment: Self.payment(for: order)))
        try Self.expectSame(OrderWithPayment(order: order, payment: nil))
    }

    @Test func severalLinesAndZeroLines() throws {
        try Self.expectSame(Self.order((1...25).map { Self.line($0, name: "Product \($0)", quantity: $0 % 99 + 1, currency: .eur) },
                                       currency: .eur))
        let empty = Self.order([])
        try Self.expectSame(empty)
        try Self.expectSame(OrderWithPayment(order: empty, payment: Self.payment(for: empty)))
    }

    @Test func withAShippingAddress() throws {
        let plain = Self.order([Self.line(1, name: "Mug")])
        for (phone, email) in [("+34910000000", nil), (nil, "ana@example.com"), ("+1", "x"), (nil, nil)] as [(String?, String?)] {
            let address = ShippingAddress(name: "Ana \"la\" López", lines: ["Calle Mayor 1", "2º B\n", "</script>"],
                                          city: "Madrid", postalCode: "28013", country: "ES", phone: phone, email: email)
            let order = Order(id: plain.id, userID: plain.userID, status: .confirmed, lines: plain.lines, total: plain.total,
                              createdAt: plain.createdAt, checkoutID: plain.checkoutID, shippingAddress: address)
            try Self.expectSame(order)
            try Self.expectSame(OrderWithPayment(order: order, payment: Self.payment(for: order)))
        }
    }

    @Test func withAndWithoutCheckoutID() throws {
        for checkout in [true, false] {
            let order = Self.order([Self.line(1, name: "Mug")], checkout: checkout)
            try Self.expectSame(order)
            try Self.expectSame(OrderWithPayment(order: order, payment: Self.payment(for: order)))
            #expect(String(decoding: OrderJSON.bytes(order), as: UTF8.self).contains("checkout_id") == checkout)
        }
    }

    @Test func namesThatNeedEscaping() throws {
        let order = Self.order(Self.escaping.enumerated().map { Self.line($0.offset, name: $0.element) })
        try Self.expectSame(order)
        try Self.expectSame(OrderWithPayment(order: order, payment: Self.payment(for: order)))
    }

    @Test func largeZeroAndNegativeNumbers() throws {
        try Self.expectSame(Self.order([Self.line(1, name: "Dear", quantity: 1, unitPrice: Int64.max)]))
        try Self.expectSame(Self.order([Self.line(1, name: "Credit", quantity: 1, unitPrice: Int64.min)]))
        try Self.expectSame(Self.order([Self.line(1, name: "Free", quantity: 0, unitPrice: 0),
                                        Self.line(2, name: "Refund", quantity: -3, unitPrice: -1_000_001)]))
        let odd = Self.order([Self.line(1, name: "Many", quantity: Int.max, unitPrice: 1)], total: -42)
        try Self.expectSame(OrderWithPayment(order: odd, payment: Self.payment(for: odd)))
    }

    @Test(arguments: [Timestamp.minimum, -1, 0, 1, 999, 1_000, 1_795_336_200_000, 1_795_336_200_001, Timestamp.maximum])
    func datesWholeAndFractional(_ milliseconds: Int64) throws {
        let order = Self.order([Self.line(1, name: "Clock")], milliseconds: milliseconds)
        try Self.expectSame(order)
        try Self.expectSame(OrderWithPayment(order: order, payment: Self.payment(for: order, expiresAt: milliseconds)))
    }

    @Test(arguments: PaymentStatus.allCases)
    func everyPaymentStatusAndMethod(_ status: PaymentStatus) throws {
        let order = Self.order([Self.line(1, name: "Mug")], status: status.orderFollows)
        for method in PaymentMethod.allCases {
            try Self.expectSame(OrderWithPayment(order: order, payment: Self.payment(for: order, status: status,
                                                                                      method: method)))
        }
    }

    @Test func referencesPlainAbsentAndEscaped() throws {
        let order = Self.order([Self.line(1, name: "Mug")], status: .confirmed)
        for reference in [nil, "SEPA-2026-11-22/0042"] + Self.escaping {
            try Self.expectSame(OrderWithPayment(order: order, payment: Self.payment(
                for: order, status: .succeeded, method: .manual, reference: reference)))
        }
        let manual = OrderWithPayment(order: order, payment: Self.payment(for: order, status: .succeeded, method: .manual,
                                                                          reference: "T-1"))
        #expect(String(decoding: OrderJSON.bytes(manual), as: UTF8.self).hasSuffix("""
            "created_at":"2026-11-22T08:30:00.123Z","checkout_id":"00000192-0000-7000-8000-000000000009",\
            "payment":{"id":"00000250-0000-7000-8000-000000000003","order_id":"00000013-0000-7000-8000-000000000001",\
            "user_id":"00000005-0000-7000-8000-000000000001","status":"succeeded",\
            "amount":{"amount":3998,"currency":"USD"},"method":"manual","expires_at":"2026-11-22T08:45:00.000Z",\
            "reference":"T-1","financial_status":"paid","paid":{"amount":3998,"currency":"USD"},\
            "refunded":{"amount":0,"currency":"USD"},"refund_owed":{"amount":0,"currency":"USD"},\
            "amount_due":{"amount":0,"currency":"USD"}}}
            """))
    }

    @Test func pagesWithAndWithoutACursor() throws {
        let first = Self.order([Self.line(1, name: "A \"lamp\"")], status: .shipped)
        let second = Self.order([Self.line(1, name: "Mug"), Self.line(2, name: "Cup")], checkout: false)
        let items = [OrderWithPayment(order: first, payment: Self.payment(for: first, status: .succeeded)),
                     OrderWithPayment(order: second, payment: nil)]
        for page in [Page(items: items, nextCursor: "MTc5NTMzNjIwMDEyMzow-_"), Page(items: [], nextCursor: nil),
                     Page(items: items, nextCursor: nil), Page(items: items, nextCursor: "odd \"cursor\" \\ \u{2028}")] {
            try Self.expectSameAsJSONBody(page, OrderJSON.page(page))
        }
        #expect(String(decoding: OrderJSON.page(Page(items: [], nextCursor: nil)), as: UTF8.self)
                == #"{"items":[],"next_cursor":null}"#)
    }

    /// The served body of an order is the document stored for it, and
    /// reads back to the same order: with every awkward name, an address
    /// (escaped text, phone and email each or not), with and without a
    /// checkout id. The body with `payment` is no order document: the
    /// reader refuses the unknown member rather than dropping it.
    @Test func servedBodyIsTheStoredDocumentAndReadsBack() throws {
        let names = Self.order(Self.escaping.enumerated().map { Self.line($0.offset, name: $0.element) }, checkout: false)
        var orders = [names, Self.order([Self.line(1, name: "Mug")])]
        for (phone, email) in [("+34 \"910\"", nil), (nil, "ana@example.com\u{2028}"), (nil, nil)] as [(String?, String?)] {
            let address = ShippingAddress(name: Self.escaping[0], lines: Self.escaping, city: "Madrid", postalCode: "28013",
                                          country: "ES", phone: phone, email: email)
            orders.append(Order(id: names.id, userID: names.userID, status: .confirmed, lines: names.lines,
                                total: names.total, createdAt: names.createdAt, checkoutID: nil, shippingAddress: address))
        }
        for order in orders {
            let served = OrderJSON.bytes(order)
            #expect(served == order.json)
            #expect(served.withUnsafeBufferPointer { Order(json: $0) } == order, "\(String(decoding: served, as: UTF8.self))")
            let encoded = try JSONBody.encode(order)
            #expect(encoded.withUnsafeBufferPointer { Order(json: $0) } == order)
            let withPayment = OrderJSON.bytes(OrderWithPayment(order: order, payment: Self.payment(for: order)))
            #expect(withPayment.withUnsafeBufferPointer { Order(json: $0) } == nil)
        }
    }
}

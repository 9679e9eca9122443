import Testing
@testable import Domain

/// Messages say money as a person reads it (major units with the
/// currency's minor-unit digits) and counts with the right plural.
@Suite struct MessageWordingTests {
    @Test(arguments: [
        (Int64(5997), "USD", "59.97 USD"), (5, "USD", "0.05 USD"), (0, "EUR", "0.00 EUR"), (-150, "USD", "-1.50 USD"),
        (5997, "JPY", "5997 JPY"), (1234, "KWD", "1.234 KWD"), (Int64.min, "USD", "-92233720368547758.08 USD"),
    ])
    func moneyInMajorUnits(_ amount: Int64, _ code: String, _ text: String) throws {
        #expect(Money(amount: amount, currency: try Currency(code)).decimalText == text)
    }

    @Test func refundAndMismatchMessagesSayMajorUnits() throws {
        let id = try #require(PaymentID("01a233a4-793b-7845-a058-0455c66b5703"))
        #expect(PaymentError.refundExceedsPaid(id, refundable: Money(amount: 5997, currency: .usd)).message
            == "payment \(id) has 59.97 USD left to refund")
        #expect(PaymentError.amountMismatch(expected: Money(amount: 5000, currency: .usd),
                                            got: Money(amount: 1, currency: .usd)).message
            == "the payment is 50.00 USD, the event says 0.01 USD")
    }

    @Test func countsSayTheirPlural() {
        #expect(AuthenticationError.tooManyAttempts(retryAfterSeconds: 1).message
            == "Too many failed sign-ins; retry in 1 second.")
        #expect(AuthenticationError.tooManyAttempts(retryAfterSeconds: 30).message
            == "Too many failed sign-ins; retry in 30 seconds.")
        let one = ValidationError([FieldError(field: "name", code: .required, message: "m")])
        #expect(one.message == "1 field failed validation: name")
    }
}

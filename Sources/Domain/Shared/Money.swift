/// An amount of money: integer minor units (cents for USD) in one currency.
/// Never floating point.
///
/// Arithmetic never traps: mixing currencies throws
/// `CurrencyMismatch`, leaving the `Int64` range throws
/// `Overflow`. Encoded as `{"amount": 1999, "currency": "USD"}`.
public struct Money: Hashable, Sendable, Codable, CustomStringConvertible {
    public let amount: Int64
    public let currency: Currency

    public init(amount: Int64, currency: Currency) {
        self.amount = amount
        self.currency = currency
    }

    public static func zero(_ currency: Currency) -> Money {
        Money(amount: 0, currency: currency)
    }

    public var isNegative: Bool { amount < 0 }

    public func adding(_ other: Money) throws -> Money {
        try requireSameCurrency(other)
        let (sum, overflow) = amount.addingReportingOverflow(other.amount)
        if overflow { throw Overflow() }
        return Money(amount: sum, currency: currency)
    }

    public func subtracting(_ other: Money) throws -> Money {
        try requireSameCurrency(other)
        let (difference, overflow) = amount.subtractingReportingOverflow(other.amount)
        if overflow { throw Overflow() }
        return Money(amount: difference, currency: currency)
    }

    /// This amount times a quantity (a unit price times a line's quantity).
    public func multiplied(by quantity: Int) throws -> Money {
        guard let factor = Int64(exactly: quantity) else { throw Overflow() }
        let (product, overflow) = amount.multipliedReportingOverflow(by: factor)
        if overflow { throw Overflow() }
        return Money(amount: product, currency: currency)
    }

    /// The sum of `values`, all in `currency`; zero for none.
    public static func sum(_ values: some Sequence<Money>, currency: Currency) throws -> Money {
        var total = Money.zero(currency)
        for value in values {
            total = try total.adding(value)
        }
        return total
    }


    private func requireSameCurrency(_ other: Money) throws {
        if other.currency != currency {
            throw CurrencyMismatch(currency, other.currency)
        }
    }

    /// `1999 USD` — for logs; the API sends the structured form.
    public var description: String { "\(amount) \(currency.code)" }
}

/// Money of two currencies was combined.
public struct CurrencyMismatch: Refusal, Hashable {
    public let first: Currency
    public let second: Currency

    public init(_ first: Currency, _ second: Currency) {
        self.first = first
        self.second = second
    }

    public var code: String { "currency_mismatch" }
    public var category: RefusalCategory { .invalid }
    public var message: String { "cannot combine \(first.code) with \(second.code)" }
}

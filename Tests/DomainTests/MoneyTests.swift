import Domain
import Foundation
import Testing

@Suite struct MoneyTests {
    @Test func currencyCodeIsThreeUpperCaseLetters() throws {
        #expect(try Currency("EUR").code == "EUR")
        for bad in ["usd", "US", "USDD", "", "U$D", "ÜSD", "12A"] {
            let errors = validationError { () throws in try Currency(bad) }
            #expect(errors?.codes(for: "currency") == [.invalidFormat], "\(bad)")
        }
    }

    @Test func addsAndSubtractsInOneCurrency() throws {
        #expect(try dollars(1999).adding(dollars(1)) == dollars(2000))
        #expect(try dollars(100).subtracting(dollars(250)) == dollars(-150))
        #expect(dollars(-150).isNegative)
        #expect(Money.zero(usd).amount == 0)
    }

    @Test func refusesMixingCurrencies() {
        let euros = Money(amount: 5, currency: .eur)
        #expect(domainError { () throws in try dollars(1).adding(euros) } == CurrencyMismatch(.usd, .eur))
        #expect(domainError { () throws in try dollars(1).subtracting(euros) } == CurrencyMismatch(.usd, .eur))
        #expect(domainError { () throws in try Money.sum([dollars(1), euros], currency: .usd) }
            == CurrencyMismatch(.usd, .eur))
        #expect(CurrencyMismatch(.usd, .eur).code == "currency_mismatch")
    }

    @Test func overflowThrowsInsteadOfTrapping() {
        let max = dollars(Int64.max)
        let min = dollars(Int64.min)
        #expect(domainError { () throws in try max.adding(dollars(1)) } == Overflow())
        #expect(domainError { () throws in try min.subtracting(dollars(1)) } == Overflow())
        #expect(domainError { () throws in try max.multiplied(by: 2) } == Overflow())
        #expect(domainError { () throws in try min.multiplied(by: -1) } == Overflow())
        #expect(domainError { () throws in try Money.sum([max, dollars(1)], currency: .usd) } == Overflow())
        #expect(Overflow().code == "overflow")
    }

    @Test func multipliesByQuantity() throws {
        #expect(try dollars(1999).multiplied(by: 3) == dollars(5997))
        #expect(try dollars(1999).multiplied(by: 0) == dollars(0))
        #expect(try dollars(Int64.max / 99).multiplied(by: 99).amount == Int64.max / 99 * 99)
    }

    @Test func sumsAndCompares() throws {
        #expect(try Money.sum([dollars(1), dollars(2), dollars(3)], currency: .usd) == dollars(6))
        #expect(try Money.sum([Money](), currency: .eur) == Money.zero(.eur))
    }

    @Test func encodesAsAmountAndCurrency() throws {
        let (decoded, json) = try roundTrip(dollars(1999))
        #expect(decoded == dollars(1999))
        #expect(json == #"{"amount":1999,"currency":"USD"}"#)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Money.self, from: Data(#"{"amount":1,"currency":"usd"}"#.utf8))
        }
    }
}

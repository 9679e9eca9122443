import Domain
import Foundation
import Testing

@Suite struct EmailTests {
    @Test func keepsDisplayFormAndNormalisesTheKey() throws {
        let email = try Email("  Ana.Lopez@Example.COM \n")
        #expect(email.address == "Ana.Lopez@Example.COM")
        #expect(email.normalized == "ana.lopez@example.com")
        #expect(Email.normalizedKey(" ANA.lopez@example.com") == email.normalized)
        #expect(try Email("ana.lopez@example.com") != email)  // display forms differ
        #expect(try Email("ana.lopez@example.com").normalized == email.normalized)  // same account
    }

    @Test(arguments: [
        "a@b.co", "first.last+tag@sub.example.org", "x_y-z@a-b.io", "!#$%&'*+/=?^_`{|}~-@example.com",
        "user@xn--bcher-kva.example", "1@123.example.com",
    ])
    func acceptsCommonAddresses(text: String) throws {
        #expect(try Email(text).address == text)
    }

    @Test(arguments: [
        "plain", "@example.com", "user@", "user@example", "a..b@example.com", ".a@example.com", "a.@example.com",
        "user@-example.com", "user@example-.com", "user@exa_mple.com", "user@example..com", "user@example.123",
        "us er@example.com", "user@@example.com", "üser@example.com", "user@[127.0.0.1]", "\"q\"@example.com",
    ])
    func refusesMalformedAddresses(text: String) {
        let errors = validationError { () throws in try Email(text) }
        #expect(errors?.codes(for: "email") == [.invalidFormat])
    }

    @Test func reportsRequiredAndLengthWithStableCodes() {
        #expect(Email.check("   ")?.code == .required)
        let long = String(repeating: "a", count: 64) + "@" + String(repeating: "b", count: 63) + "." +
            String(repeating: "c", count: 63) + "." + String(repeating: "d", count: 63) + ".com"
        #expect(long.utf8.count > Email.maxLength)
        #expect(Email.check(long)?.code == .tooLong)
        #expect(Email.check(String(repeating: "a", count: 65) + "@example.com")?.code == .invalidFormat)
        #expect(Email.check("x@example.com", field: "new_email") == nil)
        #expect(Email.check("x", field: "new_email")?.field == "new_email")
    }

    @Test func codesAsTheAddressAndRechecksOnDecode() throws {
        let (decoded, json) = try roundTrip([try Email("Ana@Example.com")])
        #expect(decoded[0].normalized == "ana@example.com")
        #expect(json == #"["Ana@Example.com"]"#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Email].self, from: Data(#"["nope"]"#.utf8)) }
    }
}

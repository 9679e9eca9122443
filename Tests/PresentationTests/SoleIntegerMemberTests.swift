import Foundation
import Testing
@testable import Presentation

/// The fast read of `{"quantity": n}` answers only what JSONDecoder would
/// answer, and steps aside (nil) for everything else.
@Suite struct SoleIntegerMemberTests {
    private struct Body: Decodable { let quantity: Int }

    private static func fast(_ text: String) -> Int? {
        SoleIntegerMember.value(named: "quantity", in: Array(text.utf8))
    }

    @Test(arguments: [
        (#"{"quantity":3}"#, 3), (#"{"quantity":0}"#, 0), (#"{"quantity":-0}"#, 0), (#"{"quantity":-12}"#, -12),
        (" \t\r\n{ \"quantity\" :\n99 } \n", 99), (#"{"quantity":999999999999999999}"#, 999_999_999_999_999_999),
    ])
    func readsTheSoleIntegerMember(_ text: String, _ expected: Int) throws {
        #expect(Self.fast(text) == expected)
        #expect(try JSONDecoder().decode(Body.self, from: Data(text.utf8)).quantity == expected)
    }

    @Test(arguments: [
        "", "{", "}", "{}", "[3]", "3", #"{"quantity":}"#, #"{"quantity":"3"}"#, #"{"quantity":3.0}"#,
        #"{"quantity":3e0}"#, #"{"quantity":03}"#, #"{"quantity":+3}"#, #"{"quantity":- 3}"#,
        #"{"quantity":1234567890123456789}"#, #"{"quantity":3,"note":"x"}"#, #"{"note":"x","quantity":3}"#,
        #"{"quantity":3,"quantity":4}"#, #"{"quantit\u0079":3}"#, #"{"Quantity":3}"#, #"{"quantityx":3}"#,
        #"{"quantity":3}x"#, #"{"quantity":3}}"#, #"{"quantity":null}"#, #"{"quantity":true}"#, "{'quantity':3}",
        // Beyond Int: these trapped (the digits were multiplied before they
        // were counted) and took the server down with one request.
        #"{"quantity":9223372036854775808}"#, #"{"quantity":99999999999999999999}"#,
        #"{"quantity":-9223372036854775809}"#, #"{"quantity":-9223372036854775808}"#,
        #"{"quantity":\#(String(repeating: "9", count: 5000))}"#,
    ])
    func stepsAsideForAnythingElse(_ text: String) {
        #expect(Self.fast(text) == nil)
    }
}

import Foundation
import Testing
@testable import Presentation

/// JSONSyntax must agree with a full JSON parser on what is JSON at all.
@Suite struct JSONSyntaxTests {
    @Test(arguments: [
        "{}", "[]", "0", "-0.5e+10", "\"a\\u00e9\\n\"", "true", "null", " { \"a\" : [1, 2.0, {\"b\": false}] } ",
        "123456789012345678901234567890", "1e400", "{\"q\": 99999999999999999999999}",
    ])
    func acceptsJSON(_ text: String) throws {
        #expect(JSONSyntax.isValid(Array(text.utf8)))
        // Foundation's parser agrees (numbers beyond Double are JSON too).
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
                || text.contains("1e400"))
    }

    @Test(arguments: [
        "", "{", "{\"a\"}", "{\"a\":}", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "tru", "nul", "\"\\x\"",
        "\"\u{01}\"", "\"open", "[1 2]", "{} {}", "{'a': 1}", "\"\\u12g4\"", "-", "1e", "NaN",
    ])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(!JSONSyntax.isValid(Array(text.utf8)))
        // Foundation's parser also refuses these, except trailing commas,
        // which it tolerates beyond RFC 8259.
        if !text.contains(",]") && !text.contains(",}") {
            #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) == nil)
        }
    }

    @Test func deepNestingIsRefusedNotOverflowed() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(!JSONSyntax.isValid(Array(deep.utf8)))
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(JSONSyntax.isValid(Array(fine.utf8)))
    }
}

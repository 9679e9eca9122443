import Foundation
import Testing
@testable import HTTPServer

@Suite struct JSONStringTests {
    @Test(arguments: ["plain", "", "quote \" and \\ backslash", "line\nbreak\r\ttab", "nul \u{0} bell \u{7}",
                      "del \u{7F}", "separators \u{2028} \u{2029}", "euro € and emoji 🧪", "/path/with/slashes"])
    func encodesWhatAJSONParserReadsBack(_ text: String) throws {
        let encoded = JSONString.encode(text)
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(encoded)]".utf8)) as? [String]
        #expect(decoded == [text])
        #expect(!encoded.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{2029}" })
    }
}

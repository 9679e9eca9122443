import Foundation
import Testing
@testable import Presentation

/// The response encoder: members in the order a type writes them, the
/// same bytes every time, and JSON that Foundation reads back as the value
/// JSONEncoder would have made.
@Suite struct OrderedJSONEncoderTests {
    struct Line: Codable, Equatable {
        let zeta: String
        let alpha: Int
        let note: String?
        let ratio: Double
        let tags: [String: Int]
        let nested: [Line]
    }

    static let sample = Line(zeta: "a/b \"q\" \n\u{2028}", alpha: -42, note: nil, ratio: 0.5, tags: ["b": 2, "a": 1, "c": 3],
                             nested: [Line(zeta: "z", alpha: 1, note: "n", ratio: 3, tags: [:], nested: [])])

    @Test func membersComeInDeclarationOrderAndDictionariesSorted() throws {
        let text = String(decoding: try OrderedJSONEncoder().encode(Self.sample), as: UTF8.self)
        #expect(text == #"{"zeta":"a/b \"q\" \n\u2028","alpha":-42,"ratio":0.5,"tags":{"a":1,"b":2,"c":3},"#
                + #""nested":[{"zeta":"z","alpha":1,"note":"n","ratio":3,"tags":{},"nested":[]}]}"#)
    }

    @Test func theBytesAreStableAndReadBackAsTheValue() throws {
        let first = try OrderedJSONEncoder().encode(Self.sample)
        for _ in 0..<20 { #expect(try OrderedJSONEncoder().encode(Self.sample) == first) }
        #expect(try JSONDecoder().decode(Line.self, from: Data(first)) == Self.sample)
    }

    @Test func aNumberJSONCannotHoldIsAnError() {
        #expect(throws: EncodingError.self) { _ = try OrderedJSONEncoder().encode([Double.nan]) }
    }
}

import Domain
import Foundation
@testable import HTTPServer
import Testing
@testable import Presentation

/// What JSONBody refuses that JSONDecoder alone accepted (issue 9): each
/// body below decoded into `{"quantity": Int}` before this change.
@Suite struct StrictJSONBodyTests {
    private struct Body: Decodable {
        let quantity: Int
        let note: String?
    }

    private static func request(_ body: [UInt8], contentType: String? = "application/json") -> HTTPRequest {
        HTTPRequest(method: .put, target: "/", headers: HTTPFields(contentType.map { [("content-type", $0)] } ?? []),
                    path: "/", pathSegments: [], query: QueryParameters([]), body: body)
    }

    private static func failure(_ body: [UInt8], contentType: String? = "application/json") -> HTTPError? {
        do {
            _ = try JSONBody.decode(Body.self, from: request(body, contentType: contentType))
            return nil
        } catch {
            return error as? HTTPError
        }
    }

    private static let utf16: [UInt8] = {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in #"{"quantity":3}"#.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        return bytes
    }()

    static let malformed: [(String, [UInt8])] = [
        ("duplicate member", Array(#"{"quantity":1,"quantity":99}"#.utf8)),
        ("duplicate after unescaping", Array(#"{"quantity":1,"quantit\u0079":99}"#.utf8)),
        ("trailing comma in object", Array(#"{"quantity":3,}"#.utf8)),
        ("trailing comma in array", Array(#"{"quantity":3,"x":[1,]}"#.utf8)),
        ("UTF-8 byte order mark", [0xEF, 0xBB, 0xBF] + Array(#"{"quantity":3}"#.utf8)),
        ("UTF-16 with BOM", utf16),
        ("UTF-16 without BOM", Array(utf16.dropFirst(2))),
        ("invalid UTF-8 in a string", Array(#"{"quantity":3,"x":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)),
        ("overlong UTF-8", Array(#"{"quantity":3,"x":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8)),
        ("encoded surrogate", Array(#"{"quantity":3,"x":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8)),
        ("lone surrogate escape", Array(#"{"quantity":3,"x":"\ud800"}"#.utf8)),
        ("deep nesting", Array((String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8)),
    ]

    @Test(arguments: malformed)
    func notStrictJSONIs400(_ name: String, _ body: [UInt8]) {
        let error = Self.failure(body)
        #expect(error?.status == .badRequest, "\(name)")
        #expect(error?.code == "malformed_json", "\(name)")
    }

    @Test(arguments: ["1e1", "1.0", "10E0", "-0.0", "1e-1"])
    func aNumberWithFractionOrExponentIs422NamingTheField(_ number: String) {
        let error = Self.failure(Array(#"{"quantity":\#(number)}"#.utf8))
        #expect(error?.status == .unprocessableContent)
        #expect(error?.code == "validation_failed")
        #expect(error?.extensions.first?.1.contains(#""field":"quantity""#) == true)
    }

    @Test func aNestedNumberIsNamedByItsPath() {
        let body = Array(#"{"items":[{"quantity":1},{"quantity":2.5}]}"#.utf8)
        guard case .notAnInteger(let path) = JSONSyntax.check(body) else {
            Issue.record("not refused")
            return
        }
        #expect(path == "items[1].quantity")
    }

    @Test(arguments: ["9223372036854775808", "-9223372036854775809", "99999999999999999999", "123456789012345678901234567890"])
    func anIntegerBeyondInt64Is422(_ number: String) {
        let error = Self.failure(Array(#"{"quantity":\#(number)}"#.utf8))
        #expect(error?.status == .unprocessableContent)
        #expect(error?.extensions.first?.1.contains(#""code":"out_of_range""#) == true)
    }

    @Test(arguments: ["9223372036854775807", "-9223372036854775808"])
    func theInt64BoundsThemselvesAreIntegers(_ number: String) {
        #expect(JSONSyntax.check(Array(#"{"quantity":\#(number)}"#.utf8)) == .valid)
    }

    @Test func escapedNamesAndValidUTF8StillDecode() throws {
        let body = Array(#"{"quantit\u0079":7,"note":"caf\u00e9 ☕ 𝄞 \ud834\udd1e"}"#.utf8)
        #expect(JSONSyntax.check(body) == .valid)
        #expect(try JSONBody.decode(Body.self, from: Self.request(body)).quantity == 7)
    }

    @Test(arguments: [nil, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                      "application/json; charset=latin1", "application/jsonx", "application/+json", "json"])
    func aBodyNotSentAsJSONIs415(_ contentType: String?) {
        let error = Self.failure(Array(#"{"quantity":3}"#.utf8), contentType: contentType)
        #expect(error?.status == .unsupportedMediaType)
        #expect(error?.code == "unsupported_media_type")
    }

    @Test(arguments: ["application/json", "Application/JSON", "application/json; charset=utf-8",
                      "application/json;charset=\"UTF-8\"", "application/merge-patch+json", "application/vnd.axiom+json"])
    func jsonMediaTypesAreAccepted(_ contentType: String) throws {
        #expect(JSONMediaType.accepts(contentType))
        #expect(try JSONBody.decode(Body.self, from: Self.request(Array(#"{"quantity":3}"#.utf8), contentType: contentType)).quantity == 3)
    }

    @Test func theCartFastPathChecksTheMediaTypeToo() {
        #expect(throws: HTTPError.self) {
            _ = try CartRoutes.QuantityBody.from(Self.request(Array(#"{"quantity":3}"#.utf8), contentType: "text/plain"))
        }
    }
}

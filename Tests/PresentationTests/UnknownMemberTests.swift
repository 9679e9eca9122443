import Domain
import Foundation
@testable import HTTPServer
import Testing
@testable import Presentation

/// `JSONBody.decode` refuses a member the body does not take, at any depth,
/// naming it (422 `validation_failed`, `unknown_field`), and a string that
/// is none of an enumeration's values lists the values. Before, each body
/// below decoded and the member was dropped.
@Suite struct UnknownMemberTests {
    private struct Line: Decodable {
        let sku: String
        let quantity: Int
    }

    private struct Order: Decodable {
        enum Speed: String, Decodable, CaseIterable {
            case standard
            case nextDay = "next_day"
        }

        let lines: [Line]
        let speed: Speed?
        let tags: [String: String]?

        enum CodingKeys: String, CodingKey {
            case lines, speed, tags
        }
    }

    private struct Event: ProviderJSONObject {
        let id: String
    }

    private static func request(_ body: String) -> HTTPRequest {
        HTTPRequest(method: .post, target: "/", headers: HTTPFields([("content-type", "application/json")]),
                    path: "/", pathSegments: [], query: QueryParameters([]), body: Array(body.utf8))
    }

    private static func fieldErrors<T: Decodable>(_ type: T.Type, _ body: String) -> [[String: String]] {
        do {
            _ = try JSONBody.decode(type, from: request(body))
            return []
        } catch let error as HTTPError {
            #expect(error.status == .unprocessableContent && error.code == "validation_failed")
            let json = error.extensions.first { $0.0 == "errors" }?.1 ?? "[]"
            return (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: String]]) ?? []
        } catch {
            Issue.record("unexpected \(error)")
            return []
        }
    }

    @Test func aKnownBodyDecodes() throws {
        let order = try JSONBody.decode(Order.self, from: Self.request(
            #"{"lines":[{"sku":"a","quantity":1}],"speed":"next_day","tags":{"any":"name","goes":"here"}}"#))
        #expect(order.lines.count == 1 && order.speed == .nextDay && order.tags?.count == 2)
    }

    @Test func unknownMembersAreNamedAtEveryDepth() {
        #expect(Self.fieldErrors(Order.self, #"{"lines":[],"sped":"standard","role":"admin"}"#)
            == [["field": "role", "code": "unknown_field", "message": "role is not a member of this request body"],
                ["field": "sped", "code": "unknown_field", "message": "sped is not a member of this request body"]])
        #expect(Self.fieldErrors(Order.self, #"{"lines":[{"sku":"a","quantity":1},{"sku":"b","quantity":2,"price":1}]}"#)
            .map { $0["field"] } == ["lines[1].price"])
    }

    @Test func anEnumerationValueOutsideItsCasesListsThem() {
        let errors = Self.fieldErrors(Order.self, #"{"lines":[],"speed":"cash"}"#)
        #expect(errors == [["field": "speed", "code": "invalid_format", "message": "speed must be one of: standard, next_day"]])
    }

    @Test func checkoutsMisspeltMethodAndCashAreRefusedNamingThem() {
        #expect(Self.fieldErrors(CheckoutBody.self, #"{"payment_metod":"bank_transfer"}"#).map { $0["field"] }
            == ["payment_metod"])
        #expect(Self.fieldErrors(CheckoutBody.self, #"{"payment_method":"cash"}"#).first?["message"]
            == "payment_method must be one of: provider, bank_transfer")
        #expect(Self.fieldErrors(CheckoutBody.self,
                                 #"{"shipping_address":{"name":"A","lines":["x"],"city":"c","postal_code":"1","country":"DE","phone":"+4930123456","nick":"n"}}"#)
            .map { $0["field"] } == ["shipping_address.nick"])
    }

    @Test func aProviderEventMayCarryMembersThisServerDoesNotRead() throws {
        #expect(try JSONBody.decode(Event.self, from: Self.request(#"{"id":"evt_1","livemode":false,"api_version":"x"}"#)).id
            == "evt_1")
    }

    /// The cart's fast path and the full decoder agree: the sole member
    /// `quantity` is read by both; anything more is the full decoder's, which
    /// now refuses the extra member instead of ignoring it.
    @Test func theCartFastPathAgreesWithTheStrictDecoder() throws {
        #expect(SoleIntegerMember.value(named: "quantity", in: Array(#"{"quantity":3}"#.utf8)) == 3)
        #expect(try CartRoutes.QuantityBody.from(Self.request(#"{"quantity":3}"#)).quantity == 3)
        #expect(SoleIntegerMember.value(named: "quantity", in: Array(#"{"quantity":3,"qty":4}"#.utf8)) == nil)
        #expect(Self.fieldErrors(CartRoutes.QuantityBody.self, #"{"quantity":3,"qty":4}"#).map { $0["field"] } == ["qty"])
    }
}

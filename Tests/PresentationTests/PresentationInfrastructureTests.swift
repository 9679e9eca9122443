import Domain
import Foundation
import Synchronization
@testable import HTTPServer
import Testing
@testable import Presentation

private func request(body: String = "", query: [(String, String)] = [],
                     headers: HTTPFields = HTTPFields([("content-type", "application/json")])) -> HTTPRequest {
    HTTPRequest(method: .post, target: "/", headers: headers, path: "/", pathSegments: [],
                query: QueryParameters(query.map { (name: $0.0, value: $0.1) }), body: Array(body.utf8))
}

private struct Quantity: Decodable {
    let quantity: Int
    let note: String?
}

private struct Lines: Decodable {
    struct Line: Decodable { let quantity: Int }
    let items: [Line]
}

/// The problem document the server would send for `error`.
private func problemBody(_ error: HTTPError) -> [String: Any] {
    guard case .bytes(let bytes) = ProblemDetails.response(for: error, requestID: "test").body else { return [:] }
    return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
}

@Suite struct JSONBodyTests {
    @Test func decodesAValidBody() throws {
        let value = try JSONBody.decode(Quantity.self, from: request(body: #"{"quantity":3,"note":"hi"}"#))
        #expect(value.quantity == 3)
        #expect(value.note == "hi")
    }

    @Test(arguments: ["", "{", "not json", #"{"quantity":3"#])
    func bytesThatAreNotJSONAre400(_ body: String) {
        #expect {
            _ = try JSONBody.decode(Quantity.self, from: request(body: body))
        } throws: { error in
            let http = error as? HTTPError
            return http?.status == .badRequest && http?.code == "malformed_json"
        }
    }

    @Test func missingMemberIs422NamingIt() throws {
        do {
            _ = try JSONBody.decode(Quantity.self, from: request(body: #"{"note":"x"}"#))
            Issue.record("decoding succeeded")
        } catch let error as HTTPError {
            #expect(error.status == .unprocessableContent)
            #expect(error.code == "validation_failed")
            let errors = try #require(problemBody(error)["errors"] as? [[String: Any]])
            #expect(errors.first?["field"] as? String == "quantity")
            #expect(errors.first?["code"] as? String == "required")
        }
    }

    @Test func wrongTypeDeepInsideIs422WithItsPath() throws {
        do {
            _ = try JSONBody.decode(Lines.self, from: request(body: #"{"items":[{"quantity":1},{"quantity":"two"}]}"#))
            Issue.record("decoding succeeded")
        } catch let error as HTTPError {
            #expect(error.status == .unprocessableContent)
            let errors = try #require(problemBody(error)["errors"] as? [[String: Any]])
            #expect(errors.first?["field"] as? String == "items[1].quantity")
            #expect(errors.first?["code"] as? String == "invalid_format")
        }
    }

    @Test func encodesResponsesAsJSONWithCharset() throws {
        struct Out: Encodable { let path: String }
        let response = try JSONBody.response(Out(path: "/a/b"), status: .created)
        #expect(response.status == .created)
        #expect(response.headers["content-type"] == "application/json; charset=utf-8")
        guard case .bytes(let bytes) = response.body else {
            Issue.record("expected bytes")
            return
        }
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"path":"/a/b"}"#)
    }
}

@Suite struct RefusalProblemTests {
    @Test func categoriesMapToStatuses() {
        let id = ProductID(UUID())
        #expect(CatalogError.insufficientStock(productID: id, requested: 2, available: 1).problem.status == .conflict)
        #expect(EntityError.duplicate(field: "email", value: "a@b.c").problem.code == "duplicate_email")
        #expect(EntityError.notFound(entity: "order", id: "x").problem.status == .notFound)
        #expect(Overflow().problem.status == .unprocessableContent)
    }

    @Test func validationListsEveryField() throws {
        let validation = ValidationError([
            FieldError(field: "name", code: .required, message: "Name is required."),
            FieldError(field: "email", code: .invalidFormat, message: "Not an email \"address\"."),
        ])
        let error = validation.problem
        #expect(error.status == .unprocessableContent)
        let errors = try #require(problemBody(error)["errors"] as? [[String: Any]])
        #expect(errors.map { $0["field"] as? String } == ["name", "email"])
        #expect(errors[1]["message"] as? String == "Not an email \"address\".")
    }
}

@Suite struct BearerTokenTests {
    @Test func readsTheToken() throws {
        let token = try BearerToken.from(request(headers: ["Authorization": "Bearer abc-DEF_123.x~+/="]))
        #expect(token == "abc-DEF_123.x~+/=")
        #expect(try BearerToken.from(request(headers: ["authorization": "bearer   tok"])) == "tok")
    }

    @Test(arguments: [nil, "Basic dXNlcjpwYXNz", "Bearer", "Bearer tok en", "Bearer t\u{7f}k", "Token abc"])
    func refusesWithAChallenge(_ value: String?) {
        var headers = HTTPFields()
        if let value { headers.append("Authorization", value) }
        do {
            _ = try BearerToken.from(request(headers: headers))
            Issue.record("accepted \(String(describing: value))")
        } catch {
            #expect(error.status == .unauthorized)
            #expect(error.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        }
    }
}

@Suite struct PageRequestTests {
    @Test func defaultsAndBounds() throws {
        #expect(try PageRequest.from(request()) == PageRequest(limit: 20, cursor: nil))
        #expect(try PageRequest.from(request(query: [("limit", "100"), ("cursor", "abc")])) == PageRequest(limit: 100, cursor: "abc"))
        for bad in ["0", "101", "-1", "ten", ""] {
            #expect(throws: HTTPError.self) { _ = try PageRequest.from(request(query: [("limit", bad)])) }
        }
    }

    @Test func pageEncodesNullCursorOnTheLastPage() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(Page(items: [1, 2], nextCursor: nil))
        #expect(String(decoding: data, as: UTF8.self) == #"{"items":[1,2],"next_cursor":null}"#)
    }
}

@Suite struct PathParameterTests {
    @Test(arguments: ["not-a-uuid", "", "6f1c2a40-0000-4000-8000-00000000000g"])
    func textThatIsNoIdIsTheResourcesNotFound(_ text: String) {
        var routed = request()
        routed.parameters = ["id": text]
        #expect(throws: EntityError.notFound(entity: "order", id: text)) { try routed.parameter("id", as: OrderID.self) }
        #expect(throws: EntityError.notFound(entity: "product", id: text)) { try routed.parameter("id", as: ProductID.self) }
        #expect(throws: EntityError.notFound(entity: "user", id: text)) { try routed.parameter("id", as: UserID.self) }
    }

    @Test func anIdParses() throws {
        var routed = request()
        routed.parameters = ["id": "6F1C2A40-0000-4000-8000-00000000000A"]
        #expect(try routed.parameter("id", as: OrderID.self).description == "6f1c2a40-0000-4000-8000-00000000000a")
    }
}

import Testing
@testable import HTTPServer
import TestSupport

@Suite struct RoutingTests {
    @Test func unknownPathIs404WithProblemDetails() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("GET /nothing/here HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(response.status == 404)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.text.contains(#""code":"not_found""#))
            #expect(response.text.contains(#""status":404"#))
        }
    }

    @Test func knownPathWithOtherMethodIs405WithAllow() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("PUT /items/1 HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
            #expect(response.status == 405)
            #expect(response.header("Allow") == "DELETE, GET, HEAD, OPTIONS")
        }
    }

    @Test func standardMethodNoResourceServesIs405NotA501() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("TRACE /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD, OPTIONS")
            #expect(try client.exchange("TRACE /nowhere HTTP/1.1\r\nHost: t\r\n\r\n").status == 404)
        }
    }

    @Test func optionsListsTheAllowedMethods() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("OPTIONS /items/1 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(response.status == 204)
            #expect(response.header("Allow") == "DELETE, GET, HEAD, OPTIONS")
            #expect(try client.exchange("OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n").status == 204)
        }
    }

    @Test func unknownMethodIs501AndVersionIs505() async throws {
        try await TestServer.with { server in
            let client = try server.client()
            let notImplemented = try client.exchange("PURGE /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(notImplemented.status == 501)
            #expect(notImplemented.text.contains(#""code":"method_not_implemented""#))
            let other = try server.client()
            try other.send("GET /health HTTP/3.0\r\nHost: t\r\n\r\n")
            let unsupported = try other.readResponse()
            #expect(unsupported.status == 505)
            #expect(unsupported.text.contains(#""code":"http_version_not_supported""#))
        }
    }

    @Test func aHigherHTTP1MinorVersionIsServedAsHTTP11() async throws {
        try await TestServer.withClient { client in
            let first = try client.exchange("GET /health HTTP/1.2\r\nHost: t\r\n\r\n")
            #expect(first.status == 200)
            #expect(first.statusLine.hasPrefix("HTTP/1.1 "))
            // Persistent, as 1.1 is by default.
            #expect(try client.exchange("GET /health HTTP/1.7\r\nHost: t\r\n\r\n").status == 200)
        }
    }

    @Test func pathParametersAndQueryArePercentDecoded() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("GET /echo/a%20b%2Fc?q=x+y%26z HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(response.text == #"{"name":"a b/c","path":"/echo/a b/c","q":"x y&z"}"#)
        }
    }

    @Test func absoluteFormTargetIsAccepted() async throws {
        try await TestServer.withClient { (client) throws in
            #expect(try client.exchange("GET http://example.com:8080/items/42?x=1 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n").text == #"{"id":"42"}"#)
        }
    }

    @Test func throwingHandlerBecomes500AndTheConnectionLives() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("GET /boom HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(response.status == 500)
            #expect(response.text.contains(#""code":"internal_error""#))
            #expect(try client.exchange("GET /health HTTP/1.1\r\nHost: t\r\n\r\n").status == 200)
        }
    }

    @Test func thrownHTTPErrorKeepsItsStatusAndCode() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("GET /teapot HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(response.status == 418)
            #expect(response.text.contains(#""code":"teapot""#))
            #expect(response.text.contains(#""detail":"Short and stout.""#))
        }
    }

    /// The router's `problem(for:)` answers an error that is not an
    /// `HTTPResponseError` (how the application renders its own errors);
    /// what it does not render stays a 500.
    @Test func routerRendersAThrownErrorItKnows() async throws {
        var router = TestRoutes.router()
        router.problem = { error in
            error is TestRoutes.Boom ? HTTPError(.conflict, code: "boom", detail: "Rendered by the router.") : nil
        }
        router.get("/other") { _ in throw CancellationError() }
        try await TestServer.with(router: router) { server in
            let client = try server.client()
            try client.send("GET /boom HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 409)
            #expect(response.text.contains(#""code":"boom""#))
            try client.send("GET /other HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 500)
        }
    }

    @Test func noContentResponseHasNoLengthOrBody() async throws {
        try await TestServer.withClient { client in
            let deleted = try client.exchange("DELETE /items/1 HTTP/1.1\r\nHost: t\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(deleted.status == 204)
            #expect(deleted.header("Content-Length") == nil)
            #expect(try client.readResponse().status == 200)
        }
    }
}

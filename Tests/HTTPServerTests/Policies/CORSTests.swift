import Testing
@testable import HTTPServer
import TestSupport

@Suite struct CORSTests {
    static let origin = "http://127.0.0.1:3000"
    static let configuration = HTTPServerConfiguration(cors: CORSPolicy(allowedOrigins: [origin], maxAge: 120))

    private func send(_ request: String, on server: TestServer) throws -> RawClient.Response {
        let client = try server.client()
        try client.send(request)
        return try client.readResponse()
    }

    @Test func preflightIsAnsweredWithTheRoutesOwnMethods() async throws {
        try await TestServer.with(configuration: Self.configuration, router: PolicyRoutes.router()) { server in
            let response = try send("OPTIONS /things HTTP/1.1\r\nHost: t\r\nOrigin: \(Self.origin)\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type, authorization\r\n\r\n", on: server)
            #expect((200..<300).contains(response.status))
            #expect(response.header("Access-Control-Allow-Origin") == Self.origin)
            #expect(response.header("Access-Control-Allow-Methods") == "OPTIONS, POST")
            let allowedHeaders = try #require(response.header("Access-Control-Allow-Headers"))
            for name in ["Authorization", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match", "X-Request-Id", "traceparent"] {
                #expect(allowedHeaders.contains(name))
            }
            #expect(response.header("Access-Control-Max-Age") == "120")
            #expect(response.header("Vary") == "Origin")
            #expect(response.header("Access-Control-Allow-Credentials") == nil)
            let items = try send("OPTIONS /items/9 HTTP/1.1\r\nHost: t\r\nOrigin: \(Self.origin)\r\nAccess-Control-Request-Method: DELETE\r\n\r\n", on: server)
            #expect(items.header("Access-Control-Allow-Methods") == nil)  // not routed in PolicyRoutes
            #expect(items.status == 404)
        }
    }

    @Test func anOriginNotListedGetsNoCORSFieldsAndIsServedAsBefore() async throws {
        try await TestServer.with(configuration: Self.configuration, router: PolicyRoutes.router()) { server in
            let preflight = try send("OPTIONS /things HTTP/1.1\r\nHost: t\r\nOrigin: http://evil.example\r\nAccess-Control-Request-Method: POST\r\n\r\n", on: server)
            #expect(preflight.status == 204)
            #expect(preflight.header("Allow") == "OPTIONS, POST")
            #expect(!preflight.headers.contains { $0.0.lowercased().hasPrefix("access-control-") })
            let actual = try send("GET /small HTTP/1.1\r\nHost: t\r\nOrigin: http://evil.example\r\n\r\n", on: server)
            #expect(actual.status == 200)
            #expect(!actual.headers.contains { $0.0.lowercased().hasPrefix("access-control-") })
            #expect(actual.header("Vary") == "Origin")
        }
    }

    @Test func actualResponsesExposeTheFieldsAPageNeeds() async throws {
        try await TestServer.with(configuration: Self.configuration, router: PolicyRoutes.router()) { server in
            let response = try send("POST /things HTTP/1.1\r\nHost: t\r\nOrigin: \(Self.origin)\r\nContent-Length: 0\r\n\r\n", on: server)
            #expect(response.status == 201)
            #expect(response.header("Access-Control-Allow-Origin") == Self.origin)
            let exposed = try #require(response.header("Access-Control-Expose-Headers"))
            for name in ["ETag", "X-Request-Id", "Retry-After", "RateLimit", "RateLimit-Policy", "Location", "traceparent"] {
                #expect(exposed.contains(name))
            }
        }
    }

    @Test func withoutAnyOriginConfiguredNoCORSFieldIsSent() async throws {
        try await TestServer.with(configuration: HTTPServerConfiguration(cors: CORSPolicy(allowedOrigins: [])),
                                  router: PolicyRoutes.router()) { server in
            let preflight = try send("OPTIONS /things HTTP/1.1\r\nHost: t\r\nOrigin: \(Self.origin)\r\nAccess-Control-Request-Method: POST\r\n\r\n", on: server)
            #expect(!preflight.headers.contains { $0.0.lowercased().hasPrefix("access-control-") })
            #expect(preflight.header("Vary") == nil)
        }
    }
}

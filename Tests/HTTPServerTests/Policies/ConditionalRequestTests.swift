import Testing
@testable import HTTPServer
import TestSupport

@Suite struct ConditionalRequestTests {
    static let configuration = HTTPServerConfiguration(compression: CompressionPolicy(minimumBytes: 1024))

    private func get(_ path: String, _ fields: String = "", on client: RawClient) throws -> RawClient.Response {
        try client.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\(fields)\r\n")
        return try client.readResponse()
    }

    @Test func aMatchingIfNoneMatchIs304WithTheValidatorAndNoBody() async throws {
        try await TestServer.with(configuration: Self.configuration, router: PolicyRoutes.router()) { server in
            let client = try server.client()
            let first = try get("/big", on: client)
            let tag = try #require(first.header("ETag"))
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""))
            #expect(first.header("Cache-Control") == "no-cache")
            for condition in [tag, "\"other\", \(tag)", "W/\(tag)", "*"] {
                let again = try get("/big", "If-None-Match: \(condition)\r\n", on: client)
                #expect(again.status == 304, "\(condition)")
                #expect(again.body.isEmpty)
                #expect(again.header("ETag") == tag)
                #expect(again.header("Cache-Control") == "no-cache")
                #expect(again.header("Vary") == "Accept-Encoding")
                #expect(again.header("Content-Type") == nil)
                #expect(again.header("Content-Length") == nil)
            }
            let stale = try get("/big", "If-None-Match: \"stale\"\r\n", on: client)
            #expect(stale.status == 200)
            #expect(stale.body == PolicyRoutes.bigBody)
        }
    }

    @Test func theGzipRepresentationHasItsOwnValidator() async throws {
        try await TestServer.with(configuration: Self.configuration, router: PolicyRoutes.router()) { server in
            let client = try server.client()
            let identity = try #require(try get("/big", on: client).header("ETag"))
            let gzip = try #require(try get("/big", "Accept-Encoding: gzip\r\n", on: client).header("ETag"))
            #expect(identity != gzip)
            #expect(try get("/big", "Accept-Encoding: gzip\r\nIf-None-Match: \(gzip)\r\n", on: client).status == 304)
            // The identity tag does not validate the gzip representation.
            let other = try get("/big", "Accept-Encoding: gzip\r\nIf-None-Match: \(identity)\r\n", on: client)
            #expect(other.status == 200)
            #expect(other.header("Content-Encoding") == "gzip")
        }
    }

    @Test func aHandlersOwnVersionTagIsUsedAndTagsFollowTheBytes() async throws {
        try await TestServer.with(router: PolicyRoutes.router()) { server in
            let client = try server.client()
            #expect(try get("/versioned", on: client).header("ETag") == "\"v7\"")
            #expect(try get("/versioned", "If-None-Match: \"v7\"\r\n", on: client).status == 304)
            #expect(try get("/small", on: client).header("Cache-Control") == "no-store")
            // Routes without the policy get no validator and ignore the condition.
            let plain = try get("/health", "If-None-Match: *\r\n", on: client)
            #expect(plain.status == 200)
            #expect(plain.header("ETag") == nil)
        }
        #expect(EntityTag.of(Array("a".utf8)) != EntityTag.of(Array("b".utf8)))
        #expect(EntityTag.of(Array("abc".utf8)) == EntityTag.of(Array("abc".utf8)))
    }

    @Test func conditionsDoNotTurnErrorsOrWritesInto304() async throws {
        try await TestServer.with(router: PolicyRoutes.router()) { server in
            let client = try server.client()
            #expect(try get("/missing", "If-None-Match: *\r\n", on: client).status == 404)
            try client.send("POST /things HTTP/1.1\r\nHost: t\r\nIf-None-Match: *\r\nContent-Length: 0\r\n\r\n")
            #expect(try client.readResponse().status == 201)
        }
    }
}

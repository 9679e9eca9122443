import Testing
@testable import HTTPServer
import TestSupport

@Suite struct CompressionTests {
    static let configuration = HTTPServerConfiguration(compression: CompressionPolicy(minimumBytes: 1024))

    private func get(_ path: String, _ fields: String = "", method: String = "GET",
                     on server: TestServer) throws -> RawClient.Response {
        let client = try server.client()
        try client.send("\(method) \(path) HTTP/1.1\r\nHost: t\r\n\(fields)\r\n")
        return try client.readResponse(forHead: method == "HEAD")
    }

    @Test func largeBodyIsGzippedWhenAcceptedAndDecodesToTheOriginal() async throws {
        try await TestServer.with(configuration: Self.configuration, router: PolicyRoutes.router()) { server in
            let response = try get("/big", "Accept-Encoding: br, gzip;q=0.8\r\n", on: server)
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(response.header("Vary") == "Accept-Encoding")
            #expect(response.header("Content-Length") == String(response.body.count))
            #expect(response.body.count < PolicyRoutes.bigBody.count / 4)
            #expect(Gunzip.decode(response.body) == PolicyRoutes.bigBody)
        }
    }

    @Test func refusedOrUnaskedGzipSendsIdentityButStillVaries() async throws {
        try await TestServer.with(configuration: Self.configuration, router: PolicyRoutes.router()) { server in
            for fields in ["", "Accept-Encoding: gzip;q=0\r\n", "Accept-Encoding: *;q=1, gzip;q=0.000\r\n",
                           "Accept-Encoding: identity\r\n", "Accept-Encoding: br\r\n"] {
                let response = try get("/big", fields, on: server)
                #expect(response.header("Content-Encoding") == nil, "\(fields)")
                #expect(response.header("Vary") == "Accept-Encoding")
                #expect(response.body == PolicyRoutes.bigBody)
            }
            let wildcard = try get("/big", "Accept-Encoding: identity;q=0, *;q=0.5\r\n", on: server)
            #expect(wildcard.header("Content-Encoding") == "gzip")
        }
    }

    @Test func smallBodiesStreamsAndTheSwitchOffAreNeverCompressed() async throws {
        try await TestServer.with(configuration: Self.configuration, router: PolicyRoutes.router()) { server in
            let small = try get("/small", "Accept-Encoding: gzip\r\n", on: server)
            #expect(small.header("Content-Encoding") == nil)
            #expect(small.header("Vary") == nil)
            let stream = try get("/events", "Accept-Encoding: gzip\r\n", on: server)
            #expect(stream.header("Content-Encoding") == nil)
            #expect(stream.text.hasPrefix("data: x"))
        }
        try await TestServer.with(router: PolicyRoutes.router()) { server in
            let off = try get("/big", "Accept-Encoding: gzip\r\n", on: server)
            #expect(off.header("Content-Encoding") == nil)
            #expect(off.header("Vary") == nil)
        }
    }

    @Test func headGivesTheGetHeadersWithTheEncodedLengthAndNoBody() async throws {
        try await TestServer.with(configuration: Self.configuration, router: PolicyRoutes.router()) { server in
            let get = try get("/big", "Accept-Encoding: gzip\r\n", on: server)
            let client = try server.client()
            try client.send("HEAD /big HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n")
            let head = try client.readResponse(forHead: true)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == String(get.body.count))
            #expect(head.header("Content-Encoding") == "gzip")
            #expect(head.header("ETag") == get.header("ETag"))
            // The connection is still in step: the next response is whole.
            try client.send("GET /small HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().text == #"{"id":1}"#)
        }
    }

    @Test func acceptEncodingQValues() {
        #expect(AcceptEncoding.allowsGzip(["gzip"]))
        #expect(AcceptEncoding.allowsGzip(["deflate, GZIP ; q=0.5"]))
        #expect(AcceptEncoding.allowsGzip(["x-gzip"]))
        #expect(AcceptEncoding.allowsGzip(["*"]))
        #expect(!AcceptEncoding.allowsGzip([]))
        #expect(!AcceptEncoding.allowsGzip(["gzip;q=0"]))
        #expect(!AcceptEncoding.allowsGzip(["gzip;q=0.0", "*"]))
        #expect(!AcceptEncoding.allowsGzip(["*;q=0"]))
        #expect(!AcceptEncoding.allowsGzip(["identity;q=0"]))
        #expect(AcceptEncoding.allowsGzip(["br;q=1.0, gzip;Q=0.001,"]))
        #expect(!AcceptEncoding.allowsGzip(["gzip;q=abc"]))
        #expect(!AcceptEncoding.allowsGzip(["gzipx, xgzip, identity"]))
        #expect(AcceptEncoding.allowsGzip(["identity", "\tGzip\t"]))
    }

    /// The request's fields are read in place with the same verdicts, every
    /// `Accept-Encoding` field line counted and no other field.
    @Test func acceptEncodingFromTheRequestsFields() {
        let cases: [([(String, String)], Bool)] = [
            ([("accept-encoding", "gzip, deflate, br")], true),
            ([("accept-encoding", "identity")], false),
            ([("accept-encoding", "*"), ("accept-encoding", "gzip;q=0")], false),
            ([("accept-encoding", "deflate"), ("Accept-Encoding", "gzip")], true),
            ([("te", "gzip")], false),
            ([], false),
        ]
        for (pairs, expected) in cases {
            #expect(AcceptEncoding.allowsGzip(HTTPFields(pairs)) == expected, "\(pairs)")
        }
    }
}

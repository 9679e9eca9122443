import Testing
@testable import HTTPServer
import TestSupport

@Suite struct BodyTests {
    @Test func contentLengthBodyIsDelivered() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhello world")
            #expect(response.text == "hello world")
        }
    }

    @Test func chunkedBodyWithExtensionsAndTrailersIsDecoded() async throws {
        try await TestServer.withClient { client in
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Checksum: 42\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "hello world")
            #expect(response.header("X-Trailer") == "42")
            // The connection is still usable after a chunked body.
            #expect(try client.exchange("GET /health HTTP/1.1\r\nHost: t\r\n\r\n").status == 200)
        }
    }

    @Test func chunkedBodyArrivingInPiecesIsDecoded() async throws {
        try await TestServer.withClient { client in
            let message = "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
            for byte in message.utf8 {
                try client.send([byte])
            }
            #expect(try client.readResponse().text == "abcde")
        }
    }

    @Test func expectContinueIsAnsweredBeforeTheBodyIsSent() async throws {
        try await TestServer.withClient { client in
            let interim = try client.exchange("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            #expect(interim.status == 100)
            let final = try client.exchange("ping")
            #expect(final.status == 200)
            #expect(final.text == "ping")
        }
    }

    @Test func expectContinueOnAMissingRouteGetsTheFinalStatusInstead() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("POST /nowhere HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            #expect(response.status == 404)
            #expect(response.header("Connection") == "close")
        }
    }

    @Test func expectContinueOnAHandlerThatIgnoresBodiesGetsItsFinalStatus() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            #expect(response.status == 200)
            #expect(response.text == #"{"status":"ok"}"#)
        }
    }

    @Test func unknownExpectationIs417() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("GET /health HTTP/1.1\r\nHost: t\r\nExpect: teapot\r\n\r\n")
            #expect(response.status == 417)
            #expect(response.text.contains(#""code":"expectation_failed""#))
        }
    }

    @Test func bodyOfARouteThatIgnoresItIsSkippedAndTheConnectionStaysInSync() async throws {
        try await TestServer.withClient { (client) throws in
            #expect(try client.exchange("GET /nowhere HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nGETGET /health HTTP/1.1\r\nHost: t\r\n\r\n").status == 404)
            #expect(try client.readResponse().status == 200)
        }
    }
}

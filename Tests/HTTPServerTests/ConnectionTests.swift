import Glibc
import Testing
@testable import HTTPServer
import TestSupport

@Suite struct ConnectionTests {
    /// Bytes and the client's FIN arriving together make one edge-triggered
    /// event: reading stopped at the short read and the EOF behind it was
    /// never seen, so each such socket stayed open until the header timeout
    /// (2,000 open in a soak). With an hour's header timeout, every client
    /// here would wait out its 30 s receive timeout instead of an EOF.
    @Test func aClientThatSendsPartOfAHeadAndClosesIsClosedAtOnce() async throws {
        try await TestServer.with(configuration: HTTPServerConfiguration(headerTimeout: .seconds(3600))) { server in
            let clients = try (0..<20).map { _ in try server.client() }
            for client in clients {
                try client.send("GET /items/1 HTTP/1.1\r\nHost: t\r\n")
                shutdown(client.fd, Int32(SHUT_WR))
            }
            for client in clients {
                #expect(try client.readToEOF().isEmpty)
            }
            await eventually { server.server.openConnections == 0 }
            #expect(server.server.openConnections == 0)
        }
    }

    @Test func keepAliveReusesTheConnection() async throws {
        try await TestServer.with { server in
            let client = try server.client()
            for index in 0..<5 {
                let response = try client.exchange("GET /items/\(index) HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(response.status == 200)
                #expect(response.text == #"{"id":"\#(index)"}"#)
                #expect(response.header("Connection") == nil)
                #expect(response.header("Date") != nil)
            }
            #expect(server.server.openConnections == 1)
        }
    }

    @Test func threePipelinedRequestsInOneWriteAreAnsweredInOrder() async throws {
        try await TestServer.with { server in
            let client = try server.client()
            // The first one is slow, so an out-of-order server would answer the others first.
            try client.send("GET /slow?ms=150 HTTP/1.1\r\nHost: t\r\n\r\n"
                + "GET /items/second HTTP/1.1\r\nHost: t\r\n\r\n"
                + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nthird")
            let first = try client.readResponse()
            let second = try client.readResponse()
            let third = try client.readResponse()
            #expect(first.text == #"{"slept_ms":150}"#)
            #expect(second.text == #"{"id":"second"}"#)
            #expect(third.text == "third")
        }
    }

    @Test func connectionCloseFromTheClientIsHonoured() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(response.status == 200)
            #expect(response.header("Connection") == "close")
            #expect(try client.isClosedByPeer())
        }
    }

    @Test func http10ClosesByDefaultAndKeepsAliveOnRequest() async throws {
        try await TestServer.with { server in
            let plain = try server.client()
            try plain.send("GET /health HTTP/1.0\r\n\r\n")
            let closing = try plain.readResponse()
            #expect(closing.status == 200)
            #expect(closing.header("Connection") == "close")
            #expect(try plain.isClosedByPeer())

            let persistent = try server.client()
            try persistent.send("GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let kept = try persistent.readResponse()
            #expect(kept.header("Connection") == "keep-alive")
            try persistent.send("GET /items/7 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try persistent.readResponse().text == #"{"id":"7"}"#)
        }
    }

    @Test func headSendsTheGetHeadersWithoutTheBody() async throws {
        try await TestServer.withClient { client in
            let get = try client.exchange("GET /items/abc HTTP/1.1\r\nHost: t\r\n\r\n")
            try client.send("HEAD /items/abc HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try client.readResponse(forHead: true)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == String(get.body.count))
            #expect(head.header("Content-Type") == get.header("Content-Type"))
            // Had a body been sent, it would be read here as a broken status line.
            #expect(try client.exchange("GET /health HTTP/1.1\r\nHost: t\r\n\r\n").text == #"{"status":"ok"}"#)
        }
    }

    @Test func requestIdIsEchoedWhenSaneAndGeneratedOtherwise() async throws {
        try await TestServer.withClient { client in
            #expect(try client.exchange("GET /health HTTP/1.1\r\nHost: t\r\nX-Request-Id: abc-123\r\n\r\n").header("X-Request-Id") == "abc-123")
            let response = try client.exchange("GET /nowhere HTTP/1.1\r\nHost: t\r\nX-Request-Id: <script>\r\n\r\n")
            let generated = try #require(response.header("X-Request-Id"))
            #expect(generated != "<script>")
            #expect(response.text.contains(#""request_id":"\#(generated)""#))
        }
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.idleTimeout = .milliseconds(500)
        try await TestServer.with(configuration: configuration) { server in
            let client = try server.client()
            #expect(try client.exchange("GET /health HTTP/1.1\r\nHost: t\r\n\r\n").status == 200)
            // The next read blocks until the server closes the idle connection.
            #expect(try client.isClosedByPeer())
        }
    }
}

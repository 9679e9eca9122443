import Glibc
import Testing
@testable import HTTPServer
import TestSupport

@Suite struct LimitTests {
    @Test func requestLineOverTheLimitIs414() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(response.status == 414)
            #expect(response.text.contains(#""code":"request_line_too_long""#))
        }
    }

    @Test func requestLineStillArrivingOverTheLimitIs414() async throws {
        try await TestServer.with { server in
            let client = try server.client()
            // No line end at all: the server must not wait for one.
            #expect(try client.exchange("GET /" + String(repeating: "a", count: 9000)).status == 414)
        }
    }

    @Test func headerSectionOverTheLimitIs431() async throws {
        try await TestServer.withClient { client in
            var request = "GET /health HTTP/1.1\r\nHost: t\r\n"
            for index in 0..<20 { request += "X-Filler-\(index): " + String(repeating: "v", count: 1000) + "\r\n" }
            let response = try client.exchange(request + "\r\n")
            #expect(response.status == 431)
            #expect(response.text.contains(#""code":"header_section_too_large""#))
        }
    }

    @Test func tooManyHeaderFieldsIs431() async throws {
        try await TestServer.withClient { client in
            var request = "GET /health HTTP/1.1\r\nHost: t\r\n"
            for index in 0..<101 { request += "X-F\(index): v\r\n" }
            let response = try client.exchange(request + "\r\n")
            #expect(response.status == 431)
            #expect(response.text.contains(#""code":"too_many_header_fields""#))
        }
    }

    @Test func declaredBodyOverTheLimitIs413BeforeAnyBodyByte() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1048577\r\n\r\n")
            #expect(response.status == 413)
            #expect(response.header("Connection") == "close")
        }
    }

    @Test func chunkedBodyGrowingOverTheLimitIs413() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.limits.maxBodyBytes = 1000
        try await TestServer.withClient(configuration: configuration) { (client) throws in
            let chunk = String(repeating: "x", count: 600)
            #expect(try client.exchange("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n").status == 413)
        }
    }

    @Test func bodyAtExactlyTheLimitIsAccepted() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.limits.maxBodyBytes = 1000
        try await TestServer.withClient(configuration: configuration) { client in
            let response = try client.exchange("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "y", count: 1000))
            #expect(response.status == 200)
            #expect(response.body.count == 1000)
        }
    }

    @Test func tricklingClientIsCutOffByTheHeaderTimeout() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.headerTimeout = .milliseconds(800)
        try await TestServer.withClient(configuration: configuration) { client in
            // One byte every 100 ms: each arrival is progress, but the header
            // section as a whole never completes in time.
            let request = Array("GET /health HTTP/1.1\r\nHost: t\r\nX-Slow: " .utf8) + [UInt8](repeating: UInt8(ascii: "z"), count: 200)
            var sent = 0
            var cutOff = false
            for byte in request {
                do { try client.send([byte]) } catch { cutOff = true; break }
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
                var probe = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
                if poll(&probe, 1, 0) > 0 { cutOff = true; break }
            }
            #expect(cutOff)
            #expect(sent < request.count)
            let response = try client.readResponse()
            #expect(response.status == 408)
            #expect(response.header("Connection") == "close")
            #expect(try client.isClosedByPeer())
        }
    }

    @Test func stalledBodyIsCutOffWith408() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.bodyTimeout = .milliseconds(500)
        try await TestServer.withClient(configuration: configuration) { client in
            let response = try client.exchange("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
            #expect(response.status == 408)
        }
    }

    @Test func connectionsOverTheCapGet503() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnections = 2
        let gate = Gate()
        try await TestServer.with(configuration: configuration, router: ConnectionPressureTests.router(holdingAt: gate)) { server in
            // Both admitted connections are being answered, so neither can
            // be reclaimed for the third.
            let first = try server.client()
            let second = try server.client()
            try first.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
            try second.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
            await eventually { gate.waiting == 2 }
            let third = try server.client()
            let refused = try third.readResponse()
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.text.contains(#""code":"too_many_connections""#))
            let requestID = try #require(refused.header("X-Request-Id"))
            #expect(refused.text.contains(#""request_id":"\#(requestID)""#))
            #expect(try third.isClosedByPeer())
            // The admitted connections are unaffected.
            gate.open()
            #expect(try first.readResponse().status == 200)
            #expect(try second.readResponse().status == 200)
        }
    }
}

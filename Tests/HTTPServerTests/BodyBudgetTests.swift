import Testing
@testable import HTTPServer
import TestSupport

/// The server-wide budget of buffered request bodies, over real sockets:
/// a body beyond it is refused 503 before it is read, and every byte
/// reserved comes back, whether the exchange completes, times out or the
/// client vanishes.
@Suite struct BodyBudgetTests {
    static func configuration(budget: Int) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.maxBufferedBodyBytes = budget
        configuration.limits.maxBodyBytes = budget
        return configuration
    }

    @Test func aBodyBeyondTheBudgetIs503WithRetryAfterAndTheBudgetComesBack() async throws {
        try await TestServer.with(configuration: Self.configuration(budget: 1_000)) { server in
            let holder = try server.client()
            try holder.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 800\r\n\r\n" + String(repeating: "a", count: 10))
            await eventually { server.server.bufferedBodyBytes == 800 }
            #expect(server.server.bufferedBodyBytes == 800)

            let refused = try server.client()
            try refused.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 800\r\n\r\n")
            let answer = try refused.readResponse()
            #expect(answer.status == 503)
            #expect(answer.header("Retry-After") == "1")
            #expect(answer.header("Connection") == "close")
            #expect(answer.text.contains(#""code":"body_buffer_full""#))
            #expect(try refused.isClosedByPeer())
            #expect(server.server.statistics.refusedOverBodyBudget == 1)

            try holder.send(String(repeating: "a", count: 790))
            #expect(try holder.readResponse().status == 200)
            await eventually { server.server.bufferedBodyBytes == 0 }
            #expect(server.server.bufferedBodyBytes == 0)

            let next = try server.client()
            try next.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 800\r\n\r\n" + String(repeating: "b", count: 800))
            #expect(try next.readResponse().status == 200)
        }
    }

    @Test func aChunkedBodyIsRefusedWhenItOutgrowsTheBudget() async throws {
        try await TestServer.with(configuration: Self.configuration(budget: 1_000)) { server in
            let holder = try server.client()
            try holder.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 900\r\n\r\n")
            await eventually { server.server.bufferedBodyBytes == 900 }
            let chunked = try server.client()
            try chunked.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n50\r\n"
                             + String(repeating: "c", count: 80) + "\r\n50\r\n" + String(repeating: "c", count: 80) + "\r\n")
            let answer = try chunked.readResponse()
            #expect(answer.status == 503)
            #expect(answer.text.contains(#""code":"body_buffer_full""#))
            await eventually { server.server.bufferedBodyBytes == 900 }
            #expect(server.server.bufferedBodyBytes == 900)
        }
    }

    @Test func reservationsAreReleasedWhenClientsAbortOrTimeOut() async throws {
        var configuration = Self.configuration(budget: 100_000)
        configuration.bodyTimeout = .milliseconds(200)
        configuration.bodyMinRate = 0
        try await TestServer.with(configuration: configuration) { server in
            var aborted: [RawClient] = []
            for _ in 0..<5 {
                let client = try server.client()
                try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\nabc")
                aborted.append(client)
            }
            let chunked = try server.client()
            try chunked.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n")
            await eventually { server.server.bufferedBodyBytes == 5_016 }
            #expect(server.server.bufferedBodyBytes == 5_016)

            aborted.removeAll()  // closes the five sockets mid-body
            await eventually { server.server.bufferedBodyBytes == 16 }
            #expect(server.server.bufferedBodyBytes == 16)
            // The chunked one stalls: 408, and its bytes are released too.
            #expect(try chunked.readResponse().status == 408)
            await eventually { server.server.bufferedBodyBytes == 0 }
            #expect(server.server.bufferedBodyBytes == 0)
        }
    }
}

import Testing
@testable import HTTPServer
import TestSupport

/// The server-wide budget of buffered request bodies, over real sockets:
/// bytes are counted as they arrive; a body that cannot fit is refused 503;
/// every byte reserved comes back, whether the exchange completes, times
/// out or the client vanishes.
@Suite struct BodyBudgetTests {
    static func configuration(budget: Int) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.maxBufferedBodyBytes = budget
        configuration.limits.maxBodyBytes = budget
        return configuration
    }

    static func post(length: Int, _ body: String = "") -> String {
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(length)\r\n\r\n" + body
    }

    @Test func aDeclaredBodyThatCannotFitIs503BeforeItIsReadAndTheBudgetComesBack() async throws {
        try await TestServer.with(configuration: Self.configuration(budget: 1_000)) { server in
            let holder = try server.client()
            try holder.send(Self.post(length: 900, String(repeating: "a", count: 850)))
            await eventually { server.server.bufferedBodyBytes == 850 }
            #expect(server.server.bufferedBodyBytes == 850)

            let refused = try server.client()
            try refused.send(Self.post(length: 800))
            let answer = try refused.readResponse()
            #expect(answer.status == 503)
            #expect(answer.header("Retry-After") == "1")
            #expect(answer.header("Connection") == "close")
            #expect(answer.text.contains(#""code":"body_buffer_full""#))
            #expect(try refused.isClosedByPeer())
            #expect(server.server.statistics.refusedOverBodyBudget == 1)

            try holder.send(String(repeating: "a", count: 50))
            #expect(try holder.readResponse().status == 200)
            await eventually { server.server.bufferedBodyBytes == 0 }
            #expect(server.server.bufferedBodyBytes == 0)

            let next = try server.client()
            try next.send(Self.post(length: 800, String(repeating: "b", count: 800)))
            #expect(try next.readResponse().status == 200)
        }
    }

    @Test func aHeadWithoutItsBodyHoldsNothing() async throws {
        // The slow-body attack declares 1 MB and sends a byte: reserving the
        // declared length let 256 such heads take a 256 MiB budget.
        try await TestServer.with(configuration: Self.configuration(budget: 1_000)) { server in
            let heads = try (0..<3).map { _ in try server.client() }
            for head in heads { try head.send(Self.post(length: 300, "x")) }
            await eventually { server.server.bufferedBodyBytes == 3 }
            #expect(server.server.bufferedBodyBytes == 3)
            let other = try server.client()
            try other.send(Self.post(length: 500, String(repeating: "o", count: 500)))
            #expect(try other.readResponse().status == 200)
        }
    }

    @Test func aBodyThatOutgrowsTheBudgetWhileArrivingIsRefusedAndReleased() async throws {
        try await TestServer.with(configuration: Self.configuration(budget: 1_000)) { server in
            let slow = try server.client()
            try slow.send(Self.post(length: 600, String(repeating: "s", count: 100)))
            await eventually { server.server.bufferedBodyBytes == 100 }
            let fast = try server.client()
            try fast.send(Self.post(length: 800, String(repeating: "f", count: 700)))
            await eventually { server.server.bufferedBodyBytes == 800 }

            try slow.send(String(repeating: "s", count: 500))
            let answer = try slow.readResponse()
            #expect(answer.status == 503)
            #expect(answer.text.contains(#""code":"body_buffer_full""#))
            await eventually { server.server.bufferedBodyBytes == 700 }
            #expect(server.server.bufferedBodyBytes == 700)
        }
    }

    @Test func aChunkedBodyIsRefusedWhenItOutgrowsTheBudget() async throws {
        try await TestServer.with(configuration: Self.configuration(budget: 1_000)) { server in
            let holder = try server.client()
            try holder.send(Self.post(length: 1_000, String(repeating: "h", count: 900)))
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

    @Test func reservationsAreReleasedWhenClientsAbort() async throws {
        var configuration = Self.configuration(budget: 100_000)
        configuration.bodyMinRate = 0
        try await TestServer.with(configuration: configuration) { server in
            var aborted: [RawClient] = []
            for _ in 0..<5 {
                let client = try server.client()
                try client.send(Self.post(length: 1_000, String(repeating: "a", count: 300)))
                aborted.append(client)
            }
            let chunked = try server.client()
            try chunked.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n")
            await eventually { server.server.bufferedBodyBytes == 1_516 }
            #expect(server.server.bufferedBodyBytes == 1_516)

            aborted.removeAll()  // closes the five sockets mid-body
            await eventually { server.server.bufferedBodyBytes == 16 }
            #expect(server.server.bufferedBodyBytes == 16)
            _ = chunked
        }
    }

    @Test func reservationsAreReleasedWhenABodyTimesOut() async throws {
        var configuration = Self.configuration(budget: 100_000)
        configuration.bodyTimeout = .seconds(2)
        configuration.bodyMinRate = 0
        try await TestServer.with(configuration: configuration) { server in
            let chunked = try server.client()
            try chunked.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n")
            await eventually { server.server.bufferedBodyBytes == 16 }
            #expect(server.server.bufferedBodyBytes == 16)
            #expect(try chunked.readResponse().status == 408)
            await eventually { server.server.bufferedBodyBytes == 0 }
            #expect(server.server.bufferedBodyBytes == 0)
        }
    }
}

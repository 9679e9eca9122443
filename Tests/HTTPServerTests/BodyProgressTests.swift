import Testing
@testable import HTTPServer
import TestSupport

/// Slow request bodies over real sockets. The limits are tiny and the
/// tests only wait (bounded) for the server's answer; what they check is
/// which limit the server says was missed, never how long it took.
@Suite struct BodyProgressTests {
    @Test func aBodyBelowTheMinimumRateIsCutOffWith408EvenWhileBytesKeepComing() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.bodyTimeout = .seconds(30)
        configuration.bodyMinRate = 1_000
        configuration.bodyGrace = .milliseconds(200)
        try await TestServer.with(configuration: configuration) { server in
            let client = try server.client()
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\nabc")
            // A byte now and then, as the attack did: each resets the stall limit.
            for _ in 0..<2_000 where server.server.openConnections > 0 {
                guard (try? client.send("x")) != nil else { break }
                try await Task.sleep(for: .milliseconds(20))
                if server.server.openConnections == 0 { break }
            }
            let response = try client.readResponse()
            #expect(response.status == 408)
            #expect(response.text.contains(#""code":"request_timeout""#))
            #expect(response.text.contains("slower than 1000 bytes per second"))
            #expect(response.header("Connection") == "close")
        }
    }

    @Test func aBodyThatTakesLongerThanTheTotalTimeoutIsCutOffWith408() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.bodyTimeout = .seconds(30)
        configuration.bodyMinRate = 0
        configuration.bodyTotalTimeout = .milliseconds(300)
        try await TestServer.with(configuration: configuration) { server in
            let client = try server.client()
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\nabc")
            for _ in 0..<2_000 {
                guard (try? client.send("xxxxxxxxxx")) != nil else { break }
                try await Task.sleep(for: .milliseconds(20))
                if server.server.openConnections == 0 { break }
            }
            let response = try client.readResponse()
            #expect(response.status == 408)
            #expect(response.text.contains("did not arrive within"))
        }
    }

    @Test func aBodyAtAGoodRateIsServed() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.bodyMinRate = 1
        configuration.bodyGrace = .seconds(30)
        try await TestServer.withClient(configuration: configuration) { client in
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 6\r\n\r\nabc")
            try await Task.sleep(for: .milliseconds(50))
            let response = try client.exchange("def")
            #expect(response.status == 200)
            #expect(response.text == "abcdef")
        }
    }
}

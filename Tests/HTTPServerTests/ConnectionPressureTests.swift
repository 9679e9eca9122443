import Testing
@testable import HTTPServer
import TestSupport

/// Connection slots under pressure, over real sockets: the per-address
/// cap, its trusted-proxy exemption, and idle connections reclaimed for
/// new ones at the global cap.
@Suite struct ConnectionPressureTests {
    @Test func connectionsOverTheAddressCapGet503WhileOtherAddressesAreServed() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnectionsPerAddress = 2
        try await TestServer.with(configuration: configuration) { server in
            let first = try server.client(from: "127.0.0.2")
            let second = try server.client(from: "127.0.0.2")
            await eventually { server.server.openConnections == 2 }
            let third = try server.client(from: "127.0.0.2")
            let refused = try third.readResponse()
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.text.contains(#""code":"too_many_connections""#))
            #expect(refused.text.contains("Your address has too many open connections"))
            #expect(try third.isClosedByPeer())
            #expect(server.server.statistics.refusedOverAddressLimit == 1)

            // Another address is not affected, and the first two still work.
            let other = try server.client(from: "127.0.0.3")
            try other.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try other.readResponse().status == 200)
            for client in [first, second] {
                try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse().status == 200)
            }
        }
    }

    @Test func aClosedConnectionGivesItsAddressSlotBack() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnectionsPerAddress = 1
        try await TestServer.with(configuration: configuration) { server in
            var first: RawClient? = try server.client(from: "127.0.0.2")
            try first?.send("GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            #expect(try first?.readResponse().status == 200)
            first = nil
            await eventually { server.server.openConnections == 0 }
            let next = try server.client(from: "127.0.0.2")
            try next.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try next.readResponse().status == 200)
        }
    }

    @Test func trustedProxiesAreExemptFromTheAddressCap() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnectionsPerAddress = 1
        configuration.trustedProxies = ["127.0.0.2"]
        try await TestServer.with(configuration: configuration) { server in
            let clients = try (0..<4).map { _ in try server.client(from: "127.0.0.2") }
            for client in clients {
                try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse().status == 200)
            }
        }
    }

    @Test func atTheCapTheLongestIdleConnectionIsClosedForANewOne() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnections = 2
        try await TestServer.with(configuration: configuration) { server in
            // The oldest has sent nothing; the second has been served and
            // idles between requests.
            let oldest = try server.client()
            await eventually { server.server.openConnections == 1 }
            let served = try server.client()
            try served.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try served.readResponse().status == 200)

            let newcomer = try server.client()
            try newcomer.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try newcomer.readResponse().status == 200)
            #expect(try oldest.isClosedByPeer())
            #expect(server.server.statistics.reclaimed == 1)
            #expect(server.server.statistics.refusedOverCapacity == 0)
            try served.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try served.readResponse().status == 200)
        }
    }

    @Test func atTheCapASlowSenderIsClosedForANewOneButNotARequestBeingAnswered() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnections = 2
        try await TestServer.with(configuration: configuration) { server in
            let slowSender = try server.client()
            try slowSender.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nab")
            let answered = try server.client()
            try answered.send("GET /slow?ms=1000 HTTP/1.1\r\nHost: t\r\n\r\n")
            await eventually { server.server.busyConnections == 1 && server.server.bufferedBodyBytes == 2 }

            let newcomer = try server.client()
            try newcomer.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try newcomer.readResponse().status == 200)
            #expect(try slowSender.isClosedByPeer())
            #expect(try answered.readResponse().status == 200)
            await eventually { server.server.bufferedBodyBytes == 0 }
            #expect(server.server.bufferedBodyBytes == 0)
        }
    }

    @Test func aFloodOfIdleConnectionsDoesNotLockOutANewClient() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnections = 20
        try await TestServer.with(configuration: configuration) { server in
            let idle = try (0..<60).map { _ in try server.client(from: "127.0.0.2") }
            await eventually { server.server.openConnections <= 21 }
            for _ in 0..<5 {
                let client = try server.client()
                try client.send("GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                #expect(try client.readResponse().status == 200)
            }
            #expect(server.server.openConnections <= 21)
            _ = idle
        }
    }
}

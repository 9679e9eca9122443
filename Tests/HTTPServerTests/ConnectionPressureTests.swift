import Testing
@testable import HTTPServer
import TestSupport

/// Connection slots under pressure, over real sockets: the per-address
/// cap, its trusted-proxy exemption, and quiet connections reclaimed for
/// new ones at either cap.
@Suite struct ConnectionPressureTests {
    /// The test routes and `/held`, whose handler waits at `gate`: its
    /// connection is busy until the test opens it.
    static func router(holdingAt gate: Gate) -> Router {
        var router = TestRoutes.router()
        router.get("/held") { _ in
            await gate.enter()
            return .json(.ok, #"{"held":true}"#)
        }
        return router
    }

    @Test func connectionsOverTheAddressCapGet503WhenNoneOfItsConnectionsIsQuiet() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnectionsPerAddress = 2
        let gate = Gate()
        try await TestServer.with(configuration: configuration, router: Self.router(holdingAt: gate)) { server in
            let first = try server.client(from: "127.0.0.2")
            let second = try server.client(from: "127.0.0.2")
            for client in [first, second] { try client.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n") }
            await eventually { server.server.openConnections == 2 && gate.waiting == 2 }
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
            gate.open()
            for client in [first, second] {
                #expect(try client.readResponse().status == 200)
                try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse().status == 200)
            }
            #expect(server.server.statistics.reclaimed == 0)
        }
    }

    /// A cap per address, and quiet connections that no timeout closes
    /// however slowly the test runs: only reclaiming closes them.
    static func capped(perAddress: Int) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.maxConnectionsPerAddress = perAddress
        configuration.headerTimeout = .seconds(3_600)
        configuration.idleTimeout = .seconds(3_600)
        return configuration
    }

    @Test func atTheAddressCapItsLongestQuietConnectionIsClosedForANewOne() async throws {
        let configuration = Self.capped(perAddress: 3)
        let gate = Gate()
        try await TestServer.with(configuration: configuration, router: Self.router(holdingAt: gate)) { server in
            // The oldest has sent nothing; the second idles between
            // requests; the third is being answered; another address is
            // the quietest of all, but not this address's to reclaim.
            let elsewhere = try server.client(from: "127.0.0.3")
            await eventually { server.server.openConnections == 1 }
            let oldest = try server.client(from: "127.0.0.2")
            await eventually { server.server.openConnections == 2 }
            let served = try server.client(from: "127.0.0.2")
            try served.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try served.readResponse().status == 200)
            let busy = try server.client(from: "127.0.0.2")
            try busy.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
            await eventually { gate.waiting == 1 }

            let newcomer = try server.client(from: "127.0.0.2")
            try newcomer.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try newcomer.readResponse().status == 200)
            #expect(try oldest.isClosedByPeer())
            #expect(server.server.statistics.reclaimed == 1)
            #expect(server.server.statistics.refusedOverAddressLimit == 0)

            // The next one takes the idle one's place; then only the busy
            // one and the newcomers are left, and the newcomers idle.
            let next = try server.client(from: "127.0.0.2")
            try next.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try next.readResponse().status == 200)
            #expect(try served.isClosedByPeer())
            gate.open()
            #expect(try busy.readResponse().status == 200)
            try elsewhere.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try elsewhere.readResponse().status == 200)
            #expect(server.server.statistics.reclaimed == 2)
        }
    }

    @Test func aPoolOfIdleConnectionsFromOneAddressIsNotRefusedANewOne() async throws {
        let configuration = Self.capped(perAddress: 10)
        try await TestServer.with(configuration: configuration) { server in
            var pool: [RawClient] = []
            for _ in 0..<40 {
                let client = try server.client(from: "127.0.0.2")
                try client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try client.readResponse().status == 200)
                pool.append(client)
            }
            #expect(server.server.statistics.refusedOverAddressLimit == 0)
            await eventually { server.server.openConnections <= 11 }
            #expect(server.server.openConnections <= 11)
            // The ten served last are still open and still served.
            for client in pool.suffix(10) {
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
        let gate = Gate()
        try await TestServer.with(configuration: configuration, router: Self.router(holdingAt: gate)) { server in
            let slowSender = try server.client()
            try slowSender.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nab")
            let answered = try server.client()
            try answered.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
            await eventually { gate.waiting == 1 && server.server.bufferedBodyBytes == 2 }

            let newcomer = try server.client()
            try newcomer.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try newcomer.readResponse().status == 200)
            #expect(try slowSender.isClosedByPeer())
            gate.open()
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

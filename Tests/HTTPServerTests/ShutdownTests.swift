import Synchronization
import Testing
@testable import HTTPServer
import TestSupport

@Suite struct ShutdownTests {
    @Test func inFlightRequestFinishesAndIdleConnectionsCloseOnShutdown() async throws {
        let gate = Gate()
        var router = TestRoutes.router()
        router.get("/held") { _ in
            await gate.enter()
            return .json(.ok, #"{"held":true}"#)
        }
        let server = try TestServer.start(router: router)
        let busy = try server.client()
        let idle = try server.client()
        try idle.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try idle.readResponse().status == 200)
        try busy.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
        await gate.entered()
        async let stopped: Void = server.stop()
        // Shutdown has begun once the idle connection is closed; only then
        // does the held request finish.
        #expect(try idle.isClosedByPeer())
        gate.open()
        let response = try busy.readResponse()
        #expect(response.status == 200)
        #expect(response.text == #"{"held":true}"#)
        #expect(response.header("Connection") == "close")
        await stopped
        #expect(server.server.openConnections == 0)
        #expect(throws: RawClient.ClientError.self) { _ = try RawClient(port: server.port) }
    }

    @Test func requestsPastTheDeadlineAreCutOff() async throws {
        let gate = Gate()
        var router = TestRoutes.router()
        router.get("/stuck") { _ in
            await gate.enter()  // never opened: the handler outlives the deadline
            return .json(.ok, "{}")
        }
        var configuration = HTTPServerConfiguration()
        configuration.shutdownDeadline = .milliseconds(200)
        let server = try TestServer.start(configuration: configuration, router: router)
        let client = try server.client()
        try client.send("GET /stuck HTTP/1.1\r\nHost: t\r\n\r\n")
        await gate.entered()
        await server.stop()
        #expect(try client.isClosedByPeer())
        #expect(server.server.openConnections == 0)
        gate.open()
    }

    /// A stream that runs until cancelled (like Server-Sent Events) is
    /// cancelled at shutdown, ends with its last chunk, and its connection
    /// closes then, not at the deadline.
    @Test func openStreamsEndAndTheirConnectionsCloseAtShutdown() async throws {
        var router = Router()
        router.get("/forever") { _ in
            HTTPResponse(status: .ok, body: .stream { writer in
                try await writer.write("tick\n")
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
            })
        }
        let lines = Mutex<[String]>([])
        let logger = ServerLogger(minimumLevel: .notice) { line in lines.withLock { $0.append(line) } }
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shutdownDeadline = .seconds(60)
        let server = HTTPServer(configuration: configuration, router: router, logger: logger)
        let client = try RawClient(port: try server.start())
        try client.send("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try client.readHead()
        #expect(head.header("Transfer-Encoding") == "chunked")
        #expect(try client.readChunk() == Array("tick\n".utf8))
        await server.shutdown()
        #expect(try client.readChunk() == nil)  // the last chunk: the body ended cleanly
        #expect(try client.isClosedByPeer())
        #expect(lines.withLock { $0 }.contains { $0.contains(#""event":"shutdown_complete","forced_closed":0"#) })
    }
}

import Testing
@testable import HTTPServer
import TestSupport

@Suite struct ShutdownTests {
    @Test func inFlightRequestFinishesAndIdleConnectionsCloseOnShutdown() async throws {
        let server = try TestServer.start()
        let busy = try server.client()
        let idle = try server.client()
        try idle.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try idle.readResponse().status == 200)
        try busy.send("GET /slow?ms=500 HTTP/1.1\r\nHost: t\r\n\r\n")
        // Let the slow request reach its handler before shutting down.
        try await Task.sleep(for: .milliseconds(100))
        async let stopped: Void = server.stop()
        let response = try busy.readResponse()
        #expect(response.status == 200)
        #expect(response.text == #"{"slept_ms":500}"#)
        #expect(response.header("Connection") == "close")
        #expect(try idle.isClosedByPeer())
        await stopped
        #expect(server.server.openConnections == 0)
        #expect(throws: RawClient.ClientError.self) { _ = try RawClient(port: server.port) }
    }

    @Test func requestsPastTheDeadlineAreCutOff() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.shutdownDeadline = .milliseconds(200)
        let server = try TestServer.start(configuration: configuration)
        let client = try server.client()
        try client.send("GET /slow?ms=60000 HTTP/1.1\r\nHost: t\r\n\r\n")
        try await Task.sleep(for: .milliseconds(100))
        await server.stop()
        #expect(try client.isClosedByPeer())
        #expect(server.server.openConnections == 0)
    }
}

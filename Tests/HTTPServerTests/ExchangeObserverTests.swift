import Synchronization
import Testing
@testable import HTTPServer
import TestSupport

/// The observer hook behind access logs and request metrics: one report per
/// answered request, with the route pattern (not the path), status, body
/// bytes and the request's headers, including answers the server made on
/// its own (404, 400) and streamed bodies.
@Suite struct ExchangeObserverTests {
    final class Reports: Sendable {
        private let list = Mutex<[CompletedExchange]>([])
        func append(_ exchange: CompletedExchange) { list.withLock { $0.append(exchange) } }
        var all: [CompletedExchange] { list.withLock { $0 } }

        /// Waits (bounded) until `count` reports arrived: a streamed body is
        /// reported when its stream ends, just after the last bytes went out.
        func waitFor(_ count: Int) async throws -> [CompletedExchange] {
            for _ in 0..<500 where all.count < count { try await Task.sleep(for: .milliseconds(10)) }
            return all
        }
    }

    @Test func everyAnsweredRequestIsReportedOnce() async throws {
        let reports = Reports()
        var router = Router()
        router.get("/items/{id}") { request in .json(.ok, #"{"id":"\#(request.parameters["id"] ?? "")"}"#) }
        router.get("/stream") { _ in
            HTTPResponse(status: .ok, body: .stream { writer in
                try await writer.write("abc")
                try await writer.write("defg")
            })
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), router: router,
                                logger: .disabled, observer: reports.append)
        let port = try server.start()
        do {
            try await exercise(port: port, reports: reports)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    private func exercise(port: Int, reports: Reports) async throws {

        let client = try RawClient(port: port)
        try client.send("GET /items/42 HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer xyz\r\nX-Request-Id: first\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        try client.send("HEAD /items/7 HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse(forHead: true).status == 200)
        try client.send("GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().status == 404)
        try client.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().text == "abcdefg")
        let broken = try RawClient(port: port)
        try broken.send("GET / HTTP/1.1\r\nHost: t\r\nBad Header: x\r\n\r\n")
        #expect(try broken.readResponse().status == 400)

        let all = try await reports.waitFor(5)
        #expect(all.count == 5)
        let first = try #require(all.first { $0.requestID == "first" })
        #expect(first.method == .get)
        #expect(first.route == "/items/{id}")
        #expect(first.status.code == 200)
        #expect(first.bodyBytes == #"{"id":"42"}"#.utf8.count)
        #expect(first.requestHeaders["authorization"] == "Bearer xyz")
        #expect(first.durationNanoseconds >= 0)
        #expect(first.remoteAddress.hasPrefix("127.0.0.1:"))
        let head = try #require(all.first { $0.method == .head })
        #expect(head.bodyBytes == 0)
        let missing = try #require(all.first { $0.status.code == 404 })
        #expect(missing.route == "")
        let streamed = try #require(all.first { $0.route == "/stream" })
        #expect(streamed.bodyBytes == 7)
        #expect(all.contains { $0.status.code == 400 && $0.route == "" })
    }
}

import Glibc
import Testing
@testable import HTTPServer
import TestSupport

/// Clients that send their requests and half-close at once (`nc -N`,
/// scripts, some proxies) read every response before the server's FIN.
@Suite struct HalfCloseTests {
    static let request = "GET /health HTTP/1.1\r\nHost: t\r\n\r\n"
    static let largeBytes = 8 << 20

    /// The test routes and `/large`, more than the socket buffers and the
    /// high watermark hold.
    static func router() -> Router {
        var router = TestRoutes.router()
        let large = [UInt8](repeating: UInt8(ascii: "l"), count: largeBytes)
        router.get("/large") { _ in HTTPResponse(status: .ok, body: .bytes(large)) }
        return router
    }

    /// Sends `requests` on a new connection, half-closes, and counts the
    /// 200 responses read before the server's FIN (nil: no FIN after them).
    static func answeredBeforeFIN(port: Int, _ requests: String, expecting count: Int) -> Int? {
        guard let client = try? RawClient(port: port), (try? client.send(requests)) != nil else { return 0 }
        shutdown(client.fd, Int32(SHUT_WR))
        var answered = 0
        while answered < count, let response = try? client.readResponse(), response.status == 200 { answered += 1 }
        return (try? client.isClosedByPeer()) == true ? answered : nil
    }

    @Test func aRequestThenFINGetsItsResponseEveryTime() async throws {
        try await TestServer.with(router: Self.router()) { server in
            let port = server.port
            let answered = await onOwnThread {
                (0..<50).filter { _ in Self.answeredBeforeFIN(port: port, Self.request, expecting: 1) == 1 }.count
            }
            #expect(answered == 50)
        }
    }

    @Test func aRequestAnsweredAfterTheFINGetsItsResponse() async throws {
        try await TestServer.with(router: Self.router()) { server in
            let port = server.port
            let answered = await onOwnThread {
                (0..<10).filter { _ in
                    Self.answeredBeforeFIN(port: port, "GET /slow?ms=1 HTTP/1.1\r\nHost: t\r\n\r\n", expecting: 1) == 1
                }.count
            }
            #expect(answered == 10)
        }
    }

    @Test func threeThousandPipelinedRequestsThenFINGetThreeThousandResponses() async throws {
        try await TestServer.with(router: Self.router()) { server in
            let port = server.port
            let answered = await onOwnThread {
                Self.answeredBeforeFIN(port: port, String(repeating: Self.request, count: 3_000), expecting: 3_000)
            }
            #expect(answered == 3_000)
        }
    }

    /// The FIN arrives while a response larger than the socket buffers is
    /// still being written: with a request buffered behind it, or as the
    /// last response of a connection that closes.
    @Test(arguments: [false, true])
    func aResponseStillBeingWrittenAtTheFINIsWrittenInFull(closing: Bool) async throws {
        try await TestServer.with(router: Self.router()) { server in
            let port = server.port
            let answered = await onOwnThread { () -> [Int] in
                guard let client = try? RawClient(port: port) else { return [] }
                let requests = closing ? "GET /large HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
                                       : "GET /large HTTP/1.1\r\nHost: t\r\n\r\n" + Self.request
                guard (try? client.send(requests)) != nil else { return [] }
                // The first bytes are here: the server is writing, and the
                // rest of the 8 MiB waits for the client to read.
                var ready = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 30_000) == 1 else { return [] }
                shutdown(client.fd, Int32(SHUT_WR))
                var bodies: [Int] = []
                while let response = try? client.readResponse(), response.status == 200 {
                    bodies.append(response.body.count)
                }
                return bodies
            }
            #expect(answered == (closing ? [Self.largeBytes] : [Self.largeBytes, 15]))
        }
    }
}

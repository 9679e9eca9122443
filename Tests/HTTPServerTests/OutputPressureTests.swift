import Glibc
import Synchronization
import Testing
@testable import HTTPServer
import TestSupport

/// Response bytes waiting for clients that read slowly: what a connection
/// holds is bounded by the high watermark however many requests it
/// pipelines, and a slow reader that keeps reading is served in full
/// however long that takes.
@Suite struct OutputPressureTests {
    static let request = "GET /large HTTP/1.1\r\nHost: t\r\n\r\n"

    /// What the `/large` route saw: how many requests it answered, and how
    /// far the server got ahead of the client's reading.
    final class Tally: Sendable {
        let answered = Atomic<Int>(0)
        /// Body bytes of the responses the client has read in full (at
        /// most what it has taken from its socket).
        let consumed = Atomic<Int>(0)
        /// The most body bytes answered beyond `consumed` when a request
        /// was taken up.
        let furthestAhead = Atomic<Int>(0)
    }

    static func router(bodyBytes: Int, tally: Tally) -> Router {
        var router = TestRoutes.router()
        // One body shared by every response: the test counts what the
        // server answers, not what the allocator does.
        let body = [UInt8](repeating: UInt8(ascii: "b"), count: bodyBytes)
        router.get("/large") { _ in
            let earlier = tally.answered.add(1, ordering: .relaxed).oldValue
            _ = tally.furthestAhead.max(earlier * bodyBytes - tally.consumed.load(ordering: .relaxed),
                                        ordering: .relaxed)
            return HTTPResponse(status: .ok, body: .bytes(body))
        }
        return router
    }

    /// The third figure of a sysctl like `net.ipv4.tcp_wmem`: the ceiling
    /// its autotuning grows a socket's buffer to.
    static func bufferCeiling(_ path: String) -> Int? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = read(fd, &bytes, bytes.count)
        guard count > 0 else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self).split(whereSeparator: \.isWhitespace).last
            .flatMap { Int($0) }
    }

    @Test func pipelinedRequestsAreAnsweredOnlyAsFarAsTheWatermarkAheadOfTheReader() async throws {
        let bodyBytes = 256 << 10
        let tally = Tally()
        let configuration = HTTPServerConfiguration()
        try await TestServer.with(configuration: configuration, router: Self.router(bodyBytes: bodyBytes, tally: tally)) { server in
            let port = server.port
            let complete = await onOwnThread { () -> Int in
                guard let client = try? RawClient(port: port),
                      (try? client.send(String(repeating: Self.request, count: 1_000))) != nil else { return 0 }
                var complete = 0
                while complete < 1_000, let response = try? client.readResponse(), response.body.count == bodyBytes {
                    complete += 1
                    tally.consumed.add(bodyBytes, ordering: .relaxed)
                }
                return complete
            }
            #expect(complete == 1_000)
            #expect(tally.answered.load(ordering: .relaxed) == 1_000)
            // When the server took up a request, what it had answered and
            // the client not yet read sat in the kernel's two socket
            // buffers or in the connection's queue, at most the watermark.
            // The slack covers the response being read, the client's read
            // ahead and the heads the tally does not count.
            let kernel = (Self.bufferCeiling("/proc/sys/net/ipv4/tcp_wmem") ?? 64 << 20)
                + (Self.bufferCeiling("/proc/sys/net/ipv4/tcp_rmem") ?? 64 << 20)
            let bound = configuration.outputHighWatermark + kernel + 2 * bodyBytes + (1 << 20)
            let ahead = tally.furthestAhead.load(ordering: .relaxed)
            #expect(ahead <= bound, "answered \(ahead) body bytes ahead of the reader; bound \(bound)")
        }
    }

    @Test func aSlowReaderThatKeepsReadingGetsEveryResponse() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.writeTimeout = .seconds(2)
        let bodyBytes = 1 << 20
        let count = 60
        try await TestServer.with(configuration: configuration, router: Self.router(bodyBytes: bodyBytes, tally: Tally())) { server in
            // A response at a time, 50 ms apart: at least 3 s in all, longer
            // than the write timeout, and never near it without a byte read.
            let port = server.port
            let complete = await onOwnThread { () -> Int in
                guard let client = try? RawClient(port: port),
                      (try? client.send(String(repeating: Self.request, count: count))) != nil else { return 0 }
                var complete = 0
                while complete < count, let response = try? client.readResponse(), response.body.count == bodyBytes {
                    complete += 1
                    usleep(50_000)
                }
                return complete
            }
            #expect(complete == count)
        }
    }
}


import Synchronization
import Testing
@testable import HTTPServer
import TestSupport

@Suite struct StreamingTests {
    @Test func streamedBodyIsSentChunked() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("GET /stream?n=3 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(response.header("Transfer-Encoding") == "chunked")
            #expect(response.text == "part 0\npart 1\npart 2\n")
            // The connection is reusable after the last chunk.
            #expect(try client.exchange("GET /health HTTP/1.1\r\nHost: t\r\n\r\n").status == 200)
        }
    }

    @Test func streamToHTTP10IsCloseDelimited() async throws {
        try await TestServer.withClient { client in
            let response = try client.exchange("GET /stream?n=2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(response.header("Connection") == "close")
            #expect(response.text == "part 0\npart 1\n")
        }
    }

    @Test func slowReaderSuspendsTheWriterInsteadOfBufferingEverything() async throws {
        let produced = Atomic<Int>(0)
        let chunk = [UInt8](repeating: UInt8(ascii: "s"), count: 64 * 1024)
        let total = 400  // 25 MiB, far more than socket buffers plus the watermark
        var router = Router()
        router.get("/firehose") { _ in
            HTTPResponse(status: .ok, body: .stream { writer in
                for _ in 0..<total {
                    try await writer.write(chunk)
                    produced.add(1, ordering: .relaxed)
                }
            })
        }
        try await TestServer.withClient(router: router) { client in
            try client.send("GET /firehose HTTP/1.1\r\nHost: t\r\n\r\n")
            // Wait until the producer stops making progress while nobody reads.
            var last = -1
            var stableRounds = 0
            for _ in 0..<200 where stableRounds < 5 {
                try await Task.sleep(for: .milliseconds(20))
                let now = produced.load(ordering: .relaxed)
                stableRounds = now == last ? stableRounds + 1 : 0
                last = now
            }
            #expect(stableRounds >= 5)
            #expect(last < total / 2, "the writer ran ahead of a reader that reads nothing: \(last) chunks")
            let response = try client.readResponse()
            #expect(response.body.count == total * chunk.count)
            let producedInTheEnd = produced.load(ordering: .relaxed)
            #expect(producedInTheEnd == total)
        }
    }

    @Test func clientThatGoesAwayEndsTheStream() async throws {
        let finished = Atomic<Bool>(false)
        var router = Router()
        router.get("/forever") { _ in
            HTTPResponse(status: .ok, body: .stream { writer in
                defer { finished.store(true, ordering: .relaxed) }
                while !Task.isCancelled {
                    try await writer.write("tick\n")
                    try await Task.sleep(for: .milliseconds(5))
                }
            })
        }
        try await TestServer.with(router: router) { server in
            do {
                let client = try server.client()
                try client.send("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n")
                _ = try client.readResponse(forHead: true)
            }
            // The client socket is closed now; the handler must notice and end.
            for _ in 0..<500 where !finished.load(ordering: .relaxed) {
                try await Task.sleep(for: .milliseconds(10))
            }
            let ended = finished.load(ordering: .relaxed)
            #expect(ended)
        }
    }

    /// `axiom_http_streams_open` reads this: a stream counts from its head
    /// until its producer returns, whoever ends it.
    @Test func openStreamsCountsStreamsFromTheirHeadUntilTheyEnd() async throws {
        var router = Router()
        router.get("/forever") { _ in
            HTTPResponse(status: .ok, body: .stream { writer in
                while !Task.isCancelled {
                    try await writer.write("tick\n")
                    try await Task.sleep(for: .milliseconds(5))
                }
            })
        }
        try await TestServer.with(router: router) { server in
            #expect(server.server.openStreams == 0)
            var clients: [RawClient] = []
            for _ in 0..<2 {
                let client = try server.client()
                try client.send("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n")
                _ = try client.readResponse(forHead: true)
                clients.append(client)
            }
            #expect(server.server.openStreams == 2)
            clients.removeFirst()  // deinit closes its socket
            for _ in 0..<500 where server.server.openStreams != 1 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(server.server.openStreams == 1)
            clients.removeFirst()
            for _ in 0..<500 where server.server.openStreams != 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(server.server.openStreams == 0)
        }
    }
}

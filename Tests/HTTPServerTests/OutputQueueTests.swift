import Glibc
import Testing
@testable import HTTPServer

/// OutputQueue over a real socket pair: what one end reads is what the
/// queue was given, in order.
@Suite struct OutputQueueTests {
    /// A head's buffer is kept once sent and the next head is written into
    /// it: it must start empty, so no byte of a longer head before it is
    /// sent again, and a body segment behind it is never taken for one.
    @Test func aReusedHeadBufferCarriesNoByteOfTheHeadBefore() throws {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var queue = OutputQueue()
        var received: [UInt8] = []
        for text in ["a much longer first head", "short", "a third head"] {
            queue.appendHead(reservingCapacity: 4) { $0.append(contentsOf: text.utf8) }
            queue.append(Array("|body|".utf8))
            guard case .flushed = queue.flush(to: ends[0]) else {
                Issue.record("the socket did not take \(text)")
                return
            }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(ends[1], &buffer, buffer.count)
            try #require(count > 0)
            received += buffer[0..<count]
        }
        #expect(String(decoding: received, as: UTF8.self)
            == "a much longer first head|body|short|body|a third head|body|")
    }
}

/// Writes a streamed response body (chunked on HTTP/1.1). `write` returns
/// once the bytes are queued, or, when the client is slow and too much is
/// queued, once the socket has drained: a producer cannot outrun its reader.
/// It throws `WriterError.connectionClosed` once the client is gone.
public final class HTTPBodyWriter: Sendable {
    public enum WriterError: Error, Sendable {
        case connectionClosed
    }

    private let connection: HTTPConnection
    private let chunked: Bool

    init(connection: HTTPConnection, chunked: Bool) {
        self.connection = connection
        self.chunked = chunked
    }

    public func write(_ bytes: [UInt8]) async throws {
        let connection = self.connection
        let chunked = self.chunked
        let mustWait = try await connection.performOnLoop { try connection.writeChunk(bytes, chunked: chunked) }
        guard mustWait else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            connection.loop.execute { connection.waitForDrain(continuation) }
        }
    }

    public func write(_ text: String) async throws {
        try await write(Array(text.utf8))
    }

    static let chunkEnd: [UInt8] = Array("\r\n".utf8)
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
}

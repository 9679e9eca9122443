import HTTPServer

extension OutboundHTTP {
    /// Header section bytes and fields read of a response (with any 1xx
    /// before it): a receiver has no reason to send more.
    static let responseHeadLimits = (bytes: 16 * 1024, fields: 100)

    /// Writes the request on `connection` and reads its response with the
    /// server's own parser. The connection goes back to the idle ones when
    /// the response allows it and nothing followed it; on any failure, or
    /// a response that ends the connection, it is closed.
    func run(_ exchange: Exchange, over connection: OutboundConnection, reused: Bool)
        async throws(ExchangeFailure) -> OutboundHTTPResponse {
        do throws(NetError) {
            try await connection.write(exchange.bytes, timeout: exchange.remaining)
        } catch {
            connection.close()
            throw ExchangeFailure(error: error.outboundError(phase: "sending the request"), beforeResponse: !error.isTimeout)
        }
        var parser = ResponseParser(
            limits: ParserLimits(maxHeaderBytes: Self.responseHeadLimits.bytes, maxHeaderCount: Self.responseHeadLimits.fields,
                                 maxBodyBytes: max(0, settings.maxResponseBytes)),
            respondingToHead: exchange.respondingToHead)
        var buffer: [UInt8] = []
        var received = 0
        while true {
            let bytes: [UInt8]
            do throws(NetError) {
                bytes = try await connection.read(timeout: exchange.remaining)
            } catch {
                connection.close()
                if case .closedByPeer = error, let response = parser.finish() {
                    return OutboundHTTPResponse(response, reusedConnection: reused)
                }
                throw ExchangeFailure(error: error.outboundError(phase: "waiting for the response", received: received),
                                      beforeResponse: received == 0 && !error.isTimeout)
            }
            received += bytes.count
            buffer += bytes
            let parsed = buffer.withUnsafeBytes { buffer in
                Result { () throws(ResponseParseError) in try parser.parse(buffer) }
            }
            switch parsed {
            case .failure(let error):
                connection.close()
                throw ExchangeFailure(error: .malformedResponse(error.reason), beforeResponse: false)
            case .success(let (consumed, response)):
                buffer.removeFirst(consumed)
                guard let response else { continue }
                // Bytes after the response were not asked for: the stream
                // cannot be trusted to start the next answer.
                if response.keepAlive && buffer.isEmpty {
                    release(connection, to: exchange.origin)
                } else {
                    connection.close()
                }
                return OutboundHTTPResponse(response, reusedConnection: reused)
            }
        }
    }
}

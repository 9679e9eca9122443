/// Reads replies off a connection: lines up to CRLF, continuation lines
/// (`250-…`) gathered until the last one (`250 …`). Bytes after a reply
/// stay buffered for the next (pipelined replies arrive together).
struct SMTPReplyReader: Sendable {
    /// RFC 5321 4.5.3.1.5 allows 512 octets a reply line; a server may be
    /// lax, so a little more is read, then the peer is refused.
    private static let maxLine = 4096
    private static let maxLines = 256
    private var buffer: [UInt8] = []

    /// True when the server has sent bytes not yet read as a reply (after
    /// STARTTLS's 220 that would be plaintext injected before the handshake).
    var hasBufferedBytes: Bool { !buffer.isEmpty }

    mutating func reply(from connection: OutboundConnection, timeout: Duration) async throws -> SMTPReply {
        var code: Int?
        var lines: [String] = []
        while true {
            let line = try await self.line(from: connection, timeout: timeout)
            guard line.count >= 3, line.prefix(3).allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  line.count == 3 || line[3] == UInt8(ascii: " ") || line[3] == UInt8(ascii: "-")
            else { throw MailTransportError.protocolViolation("malformed reply line") }
            let lineCode = line.prefix(3).reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            guard code == nil || code == lineCode else {
                throw MailTransportError.protocolViolation("reply lines with different codes")
            }
            code = lineCode
            lines.append(String(decoding: line.dropFirst(4), as: UTF8.self))
            guard lines.count <= Self.maxLines else { throw MailTransportError.protocolViolation("reply too long") }
            if line.count == 3 || line[3] == UInt8(ascii: " ") { return SMTPReply(code: lineCode, lines: lines) }
        }
    }

    private mutating func line(from connection: OutboundConnection, timeout: Duration) async throws -> [UInt8] {
        let deadline = Deadline(after: timeout)
        while true {
            if let end = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                if line.last == 0x0D { line.removeLast() }
                return line
            }
            guard buffer.count <= Self.maxLine else { throw MailTransportError.protocolViolation("reply line too long") }
            guard !deadline.hasPassed else { throw MailTransportError.connection(.timedOut("waiting for a reply")) }
            do {
                buffer += try await connection.read(timeout: ContinuousClock.now.duration(to: deadline.instant))
            } catch {
                throw MailTransportError.connection(error)
            }
        }
    }
}

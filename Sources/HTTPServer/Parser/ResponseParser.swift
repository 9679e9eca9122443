/// An incremental HTTP/1.1 response parser (RFC 9112) for the outbound
/// client, on the request parser's line scanning, field syntax and limits.
/// The caller hands it the unconsumed bytes as they arrive; it consumes
/// what it can and returns the response once it is whole, then is spent
/// (one parser per response). When the peer closes the connection the
/// caller calls `finish()`, which ends a body delimited by the close.
///
/// Interim 1xx responses are read and skipped. The status line and every
/// header section read, interim ones included, share `maxHeaderBytes`;
/// `maxHeaderCount` bounds each section; `maxBodyBytes` bounds the body
/// kept, and a longer body ends the response early as truncated.
/// `maxRequestLineBytes` plays no part.
public struct ResponseParser: Sendable {
    private enum State {
        case statusLine
        case headers
        case lengthBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
        case done
    }

    public let limits: ParserLimits
    /// A response to HEAD has no body, whatever its fields say (RFC 9110 9.3.2).
    private let respondsToHead: Bool
    private var state = State.statusLine
    private var scanner = LineScanner()

    private var version = HTTPVersion.http1_1
    private var status = 0
    private var reason = ""
    private var fields = HTTPFields()
    private var headerBytes = 0
    private var trailerBytes = 0
    private var body: [UInt8] = []
    private var keepAlive = true

    public init(limits: ParserLimits, respondingToHead: Bool = false) {
        self.limits = limits
        self.respondsToHead = respondingToHead
    }

    /// Reads from `bytes` (everything not consumed by earlier calls, with
    /// what arrived since). Returns how many bytes it consumed and the
    /// response once it is complete; bytes after it are left unconsumed.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(ResponseParseError)
        -> (consumed: Int, response: ReceivedResponse?) {
        var offset = 0
        while true {
            switch state {
            case .statusLine:
                guard let line = try nextLine(bytes, from: offset, limit: limits.maxHeaderBytes - headerBytes)
                else { return (offset, nil) }
                headerBytes += line.count + 2
                offset += line.count + 2
                try parseStatusLine(line)
                state = .headers

            case .headers:
                guard let line = try nextLine(bytes, from: offset, limit: limits.maxHeaderBytes - headerBytes)
                else { return (offset, nil) }
                headerBytes += line.count + 2
                offset += line.count + 2
                if line.isEmpty {
                    if let response = try finishHead() { return (offset, response) }
                } else {
                    guard fields.count < limits.maxHeaderCount else {
                        throw ResponseParseError("More than \(limits.maxHeaderCount) header fields.")
                    }
                    let field = try Self.fieldLine(line)
                    fields.append(field.name, field.value)
                }

            case .lengthBody(let remaining):
                let take = keep(bytes, from: offset, upTo: remaining)
                offset += take
                if take == remaining { return (offset, finish(truncated: false)) }
                if body.count == limits.maxBodyBytes { return (offset, finish(truncated: true)) }
                state = .lengthBody(remaining: remaining - take)
                return (offset, nil)

            case .chunkSize:
                guard let line = try nextLine(bytes, from: offset, limit: ParserLimits.maxChunkLineBytes)
                else { return (offset, nil) }
                offset += line.count + 2
                let size: Int
                do throws(ChunkSizeLine.Failure) {
                    size = try ChunkSizeLine.parse(line)
                } catch {
                    switch error {
                    case .tooLarge: throw ResponseParseError("A chunk size exceeds 15 hexadecimal digits.")
                    case .malformed(let detail): throw ResponseParseError(detail)
                    }
                }
                if size == 0 {
                    state = .trailers
                } else if body.count == limits.maxBodyBytes {
                    return (offset, finish(truncated: true))
                } else {
                    state = .chunkData(remaining: size)
                }

            case .chunkData(let remaining):
                let take = keep(bytes, from: offset, upTo: remaining)
                offset += take
                if take == remaining {
                    state = .chunkDataEnd
                } else if body.count == limits.maxBodyBytes {
                    return (offset, finish(truncated: true))
                } else {
                    state = .chunkData(remaining: remaining - take)
                    return (offset, nil)
                }

            case .chunkDataEnd:
                guard bytes.count - offset >= 2 else { return (offset, nil) }
                guard bytes[offset] == ASCII.cr, bytes[offset + 1] == ASCII.lf else {
                    throw ResponseParseError("Chunk data is not followed by CRLF.")
                }
                offset += 2
                state = .chunkSize

            case .trailers:
                // Read to the blank line and dropped: nothing here uses them.
                guard let line = try nextLine(bytes, from: offset, limit: limits.maxHeaderBytes - trailerBytes)
                else { return (offset, nil) }
                trailerBytes += line.count + 2
                offset += line.count + 2
                if line.isEmpty { return (offset, finish(truncated: false)) }

            case .untilClose:
                let available = bytes.count - offset
                let take = keep(bytes, from: offset, upTo: available)
                offset += take
                if take < available { return (offset, finish(truncated: true)) }
                return (offset, nil)

            case .done:
                return (offset, nil)
            }
        }
    }

    /// The peer closed the connection: the response whose body it
    /// delimited, or nil when the close cut a response short.
    public mutating func finish() -> ReceivedResponse? {
        guard case .untilClose = state else { return nil }
        return finish(truncated: false)
    }

    // MARK: Lines

    /// The next complete line (without its CRLF), nil when more bytes are needed.
    private mutating func nextLine(_ bytes: UnsafeRawBufferPointer, from start: Int,
                                   limit: Int) throws(ResponseParseError) -> UnsafeRawBufferPointer? {
        switch scanner.next(bytes, from: start, limit: limit) {
        case .complete(let end): return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        case .incomplete: return nil
        case .tooLong:
            if case .chunkSize = state {
                throw ResponseParseError("A chunk-size line exceeds \(ParserLimits.maxChunkLineBytes) bytes.")
            }
            throw ResponseParseError("The response head or its trailers exceed \(limits.maxHeaderBytes) bytes.")
        case .bareLF: throw ResponseParseError("A line ends in a bare LF; lines must end in CRLF.")
        }
    }

    private static func fieldLine(_ line: UnsafeRawBufferPointer) throws(ResponseParseError) -> (name: String, value: String) {
        do throws(HTTPParseError) {
            return try FieldLine.parse(line)
        } catch {
            throw ResponseParseError(error.detail)
        }
    }

    /// status-line = HTTP-version SP status-code SP [ reason-phrase ]
    /// (RFC 9112 4); a line that ends right after the code is taken too.
    private mutating func parseStatusLine(_ line: UnsafeRawBufferPointer) throws(ResponseParseError) {
        guard line.count >= 12, line[8] == ASCII.space,
              let parsed = VersionText.parse(UnsafeRawBufferPointer(rebasing: line[0..<8])),
              let hundreds = VersionText.decimalDigit(line[9]), let tens = VersionText.decimalDigit(line[10]),
              let units = VersionText.decimalDigit(line[11])
        else { throw ResponseParseError("The status line is not 'HTTP/1.x NNN reason'.") }
        guard parsed.major == 1 else { throw ResponseParseError("The response is not HTTP/1.x.") }
        version = parsed.minor == 0 ? .http1_0 : .http1_1
        status = hundreds * 100 + tens * 10 + units
        // RFC 9110 15: codes outside 100...599 are invalid.
        guard (100...599).contains(status) else { throw ResponseParseError("The status code \(status) is invalid.") }
        let rest = UnsafeRawBufferPointer(rebasing: line[12...])
        if !rest.isEmpty {
            guard rest[0] == ASCII.space else { throw ResponseParseError("The status line is not 'HTTP/1.x NNN reason'.") }
            guard rest.dropFirst().allSatisfy(ASCII.isFieldValue) else {
                throw ResponseParseError("The reason phrase contains control characters.")
            }
            reason = String(decoding: rest.dropFirst(), as: UTF8.self)
        } else {
            reason = ""
        }
    }

    // MARK: Head and framing (RFC 9112 6.3)

    /// Decides the body's framing; returns the response when it has no body.
    private mutating func finishHead() throws(ResponseParseError) -> ReceivedResponse? {
        if status < 200 {
            // RFC 9110 15.2.2: a 101 answers an Upgrade, which no request here carries.
            guard status != 101 else { throw ResponseParseError("A 101 Switching Protocols nobody asked for.") }
            // An interim response (100 Continue, 103 Early Hints): the final
            // one follows on the same connection. Its bytes stay counted.
            fields = HTTPFields()
            state = .statusLine
            return nil
        }
        keepAlive = Self.allowsKeepAlive(FieldList.elements(fields.values(for: "connection")), version: version)
        if respondsToHead || status == 204 || status == 304 { return finish(truncated: false) }
        let transferEncodings = fields.values(for: "transfer-encoding")
        let contentLengths = fields.values(for: "content-length")
        if !transferEncodings.isEmpty {
            guard contentLengths.isEmpty else {
                throw ResponseParseError("Content-Length and Transfer-Encoding together are refused (response splitting).")
            }
            guard version == .http1_1 else { throw ResponseParseError("Transfer-Encoding in an HTTP/1.0 response.") }
            // Only chunked: no request here offers another coding (TE).
            guard FieldList.elements(transferEncodings).filter({ !$0.isEmpty }) == ["chunked"] else {
                throw ResponseParseError("A transfer coding other than chunked alone.")
            }
            state = .chunkSize
            return nil
        }
        if !contentLengths.isEmpty {
            let length = try Self.contentLength(contentLengths)
            if length == 0 { return finish(truncated: false) }
            // At most what is kept is reserved, whatever the length says.
            body.reserveCapacity(min(length, limits.maxBodyBytes))
            state = .lengthBody(remaining: length)
            return nil
        }
        // No framing field: the body runs until the server closes.
        keepAlive = false
        state = .untilClose
        return nil
    }

    /// Content-Length = 1*DIGIT; a list of one value repeated is that value
    /// (RFC 9110 8.6), differing values are refused.
    private static func contentLength(_ values: [String]) throws(ResponseParseError) -> Int {
        let elements = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingWhitespace() }
        var length: Int?
        for element in elements {
            guard !element.isEmpty, element.utf8.count <= 18, element.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let value = Int(element)
            else { throw ResponseParseError("Content-Length is not a decimal number.") }
            guard length == nil || length == value else { throw ResponseParseError("Conflicting Content-Length values.") }
            length = value
        }
        return length ?? 0
    }

    private static func allowsKeepAlive(_ options: [String], version: HTTPVersion) -> Bool {
        if options.contains("close") { return false }
        return version == .http1_1 || options.contains("keep-alive")
    }

    // MARK: Body

    /// Appends up to `count` of the bytes from `offset`, no more than the
    /// body may still keep; returns how many it took.
    private mutating func keep(_ bytes: UnsafeRawBufferPointer, from offset: Int, upTo count: Int) -> Int {
        let take = min(count, bytes.count - offset, limits.maxBodyBytes - body.count)
        body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)]))
        return take
    }

    private mutating func finish(truncated: Bool) -> ReceivedResponse {
        let response = ReceivedResponse(version: version, status: status, reason: reason, headers: fields, body: body,
                                        bodyTruncated: truncated, keepAlive: keepAlive && !truncated)
        body = []
        state = .done
        return response
    }
}

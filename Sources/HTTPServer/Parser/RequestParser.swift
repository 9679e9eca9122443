/// An incremental HTTP/1.1 request parser (RFC 9112) over whatever bytes have
/// arrived. The caller hands it the unconsumed bytes; it consumes whole lines
/// and body bytes, and reports at most one event per call:
/// `.head` once the header section is complete and valid, then `.body` once
/// the body (possibly empty, possibly chunked) has been read in full.
/// Between the two the caller may answer early (404, 417, 100-continue).
/// Any violation throws an `HTTPParseError`; the parser is then spent.
struct RequestParser {
    enum Event {
        case head(RequestHead)
        case body([UInt8], trailers: HTTPFields)
    }

    private enum State {
        case requestLine
        case headers
        case lengthBody(remaining: Int)
        case emptyBody
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
    }

    let limits: ParserLimits
    private var state: State = .requestLine
    private var scanner = LineScanner()

    // The request being assembled.
    private var method = HTTPMethod.get
    private var target = ""
    private var version = HTTPVersion.http1_1
    private var fields = HTTPFields()
    private var headerBytes = 0
    private var body: [UInt8] = []
    private var trailerFields = HTTPFields()

    init(limits: ParserLimits) {
        self.limits = limits
    }

    /// Body bytes read and held so far for the request being parsed.
    var bufferedBodyBytes: Int { body.count }

    /// True when no byte of a next request has been consumed yet.
    var isAtRequestBoundary: Bool {
        if case .requestLine = state { return scanner.scanned == 0 }
        return false
    }

    mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> (consumed: Int, event: Event?) {
        var offset = 0
        while true {
            switch state {
            case .requestLine:
                guard let end = try nextLine(bytes, from: offset, limit: limits.maxRequestLineBytes, kind: .requestLine)
                else { return (offset, nil) }
                let line = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
                offset = end + 2
                // RFC 9112 2.2: ignore empty lines before a request line.
                if line.isEmpty { continue }
                try parseRequestLine(line)
                state = .headers

            case .headers:
                guard let ended = try readFieldLine(bytes, offset: &offset, trailer: false) else { return (offset, nil) }
                if ended { return (offset, .head(try finishHead())) }

            case .emptyBody:
                return (offset, finishBody())

            case .lengthBody(let remaining):
                let take = min(remaining, bytes.count - offset)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)]))
                offset += take
                if remaining - take == 0 { return (offset, finishBody()) }
                state = .lengthBody(remaining: remaining - take)
                return (offset, nil)

            case .chunkSize:
                guard let end = try nextLine(bytes, from: offset, limit: ParserLimits.maxChunkLineBytes, kind: .chunkSize)
                else { return (offset, nil) }
                let size = try chunkSize(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                offset = end + 2
                if size == 0 {
                    headerBytes = 0
                    state = .trailers
                } else {
                    guard size <= limits.maxBodyBytes - body.count else { throw bodyTooLarge() }
                    state = .chunkData(remaining: size)
                }

            case .chunkData(let remaining):
                let take = min(remaining, bytes.count - offset)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)]))
                offset += take
                if remaining - take > 0 {
                    state = .chunkData(remaining: remaining - take)
                    return (offset, nil)
                }
                state = .chunkDataEnd

            case .chunkDataEnd:
                guard bytes.count - offset >= 2 else { return (offset, nil) }
                guard bytes[offset] == ASCII.cr, bytes[offset + 1] == ASCII.lf else {
                    throw .badRequest("Chunk data is not followed by CRLF.", code: "invalid_chunk")
                }
                offset += 2
                state = .chunkSize

            case .trailers:
                guard let ended = try readFieldLine(bytes, offset: &offset, trailer: true) else { return (offset, nil) }
                if ended { return (offset, finishBody()) }
            }
        }
    }

    /// Reads one line of a field section, the header section or the
    /// trailers, both held to the same limits. Returns nil when more bytes
    /// are needed, true at the blank line that ends the section.
    private mutating func readFieldLine(_ bytes: UnsafeRawBufferPointer, offset: inout Int,
                                        trailer: Bool) throws(HTTPParseError) -> Bool? {
        guard let end = try nextLine(bytes, from: offset, limit: limits.maxHeaderBytes - headerBytes, kind: .fieldLine)
        else { return nil }
        let line = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
        offset = end + 2
        headerBytes += line.count + 2
        if line.isEmpty { return true }
        guard (trailer ? trailerFields.count : fields.count) < limits.maxHeaderCount else {
            throw HTTPParseError(status: .requestHeaderFieldsTooLarge, code: "too_many_header_fields",
                                 detail: "More than \(limits.maxHeaderCount) \(trailer ? "trailer" : "header") fields.")
        }
        let (name, value) = try FieldLine.parse(line)
        if trailer { trailerFields.append(name, value) } else { fields.append(name, value) }
        return false
    }

    // MARK: Lines

    /// Finds the CRLF ending the line that starts at `start`. Returns the index
    /// of its CR, or nil when more bytes are needed. A line longer than
    /// `limit` (complete or not) throws `kind`'s error; a bare LF is refused.
    @inline(__always)
    private mutating func nextLine(_ bytes: UnsafeRawBufferPointer, from start: Int, limit: Int,
                                   kind: LineKind) throws(HTTPParseError) -> Int? {
        switch scanner.next(bytes, from: start, limit: limit) {
        case .complete(let end): return end
        case .incomplete: return nil
        case .tooLong: throw lineTooLong(kind)
        case .bareLF: throw .badRequest("A line ends in a bare LF; lines must end in CRLF.")
        }
    }

    // MARK: Request line

    private mutating func parseRequestLine(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) {
        guard let firstSpace = line.firstIndex(of: ASCII.space), firstSpace > 0 else {
            throw .badRequest("The request line is not 'method SP target SP version'.")
        }
        let methodBytes = UnsafeRawBufferPointer(rebasing: line[0..<firstSpace])
        guard methodBytes.allSatisfy(ASCII.isToken) else {
            throw .badRequest("The method is not a valid token.")
        }
        let rest = UnsafeRawBufferPointer(rebasing: line[(firstSpace + 1)...])
        guard let secondSpace = rest.firstIndex(of: ASCII.space), secondSpace > 0 else {
            throw .badRequest("The request line is not 'method SP target SP version'.")
        }
        let targetBytes = UnsafeRawBufferPointer(rebasing: rest[0..<secondSpace])
        guard targetBytes.allSatisfy(ASCII.isTarget) else {
            throw .badRequest("The request target contains whitespace, control or non-ASCII bytes.")
        }
        let versionBytes = UnsafeRawBufferPointer(rebasing: rest[(secondSpace + 1)...])
        version = try parseVersion(versionBytes)
        method = HTTPMethod.parse(methodBytes)
        target = String(decoding: targetBytes, as: UTF8.self)
    }

    private func parseVersion(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> HTTPVersion {
        guard let (major, minor) = VersionText.parse(bytes) else { throw .badRequest("The HTTP version is malformed.") }
        switch (major, minor) {
        case (1, 0): return .http1_0
        // RFC 9110 2.5: a higher minor version of a major version we
        // implement is processed as the highest minor we conform to.
        case (1, _): return .http1_1
        default:
            throw HTTPParseError(status: .httpVersionNotSupported, code: "http_version_not_supported",
                                 detail: "Only HTTP/1.0 and HTTP/1.1 are supported.")
        }
    }

    // MARK: Line errors

    /// Which line `nextLine` reads, for its error when the line is too
    /// long. The error is built only then: its detail is an interpolated
    /// String, and passing it in ready-made would cost two heap allocations
    /// for every line.
    private enum LineKind {
        case requestLine, fieldLine, chunkSize
    }

    private func lineTooLong(_ kind: LineKind) -> HTTPParseError {
        switch kind {
        case .requestLine:
            HTTPParseError(status: .uriTooLong, code: "request_line_too_long",
                           detail: "The request line exceeds \(limits.maxRequestLineBytes) bytes.")
        case .fieldLine: headerSectionTooLarge()
        case .chunkSize: .badRequest("A chunk-size line exceeds \(ParserLimits.maxChunkLineBytes) bytes.", code: "invalid_chunk")
        }
    }

    private func headerSectionTooLarge() -> HTTPParseError {
        HTTPParseError(status: .requestHeaderFieldsTooLarge, code: "header_section_too_large",
                       detail: "The header section exceeds \(limits.maxHeaderBytes) bytes.")
    }

    private func bodyTooLarge() -> HTTPParseError {
        HTTPParseError(status: .contentTooLarge, code: "body_too_large",
                       detail: "The request body exceeds \(limits.maxBodyBytes) bytes.")
    }

    // MARK: Head validation (RFC 9112 sections 3.2, 6, 9; RFC 9110 10.1.1)

    /// The fields that decide framing and connection handling, gathered in
    /// one pass over the header section.
    private struct FramingFields {
        /// The first Host and how many there were: every request has one,
        /// and an array of it would be an allocation a request.
        var host: String?
        var hostCount = 0
        var transferEncodings: [String] = []
        var contentLengths: [String] = []
        var connectionOptions: [String] = []
        var expectations: [String] = []

        init(_ fields: HTTPFields) {
            for field in fields {
                // Names are stored lowercased by parseFieldLine.
                switch field.name {
                case "host":
                    if host == nil { host = field.value }
                    hostCount += 1
                case "transfer-encoding": transferEncodings.append(field.value)
                case "content-length": contentLengths.append(field.value)
                case "connection": connectionOptions.append(field.value)
                case "expect": expectations.append(field.value)
                default: break
                }
            }
        }
    }

    private mutating func finishHead() throws(HTTPParseError) -> RequestHead {
        let framingFields = FramingFields(fields)
        if framingFields.hostCount > 1 { throw .badRequest("More than one Host header field.") }
        if version == .http1_1 && framingFields.host == nil {
            throw .badRequest("An HTTP/1.1 request must carry a Host header field.")
        }
        if let host = framingFields.host, !Self.isValidHost(host) {
            throw .badRequest("The Host header field is not a valid host[:port].")
        }
        let framing = try bodyFraming(framingFields)
        switch framing {
        case .none: state = .emptyBody
        case .length(let length):
            // One allocation of the declared length (at most max_body_bytes):
            // no copies as it grows. Only the pages written become resident
            // (the server maps large blocks on their own; see main.swift).
            body.reserveCapacity(length)
            state = .lengthBody(remaining: length)
        case .chunked: state = .chunkSize
        }
        let head = RequestHead(method: method, target: target, version: version, headers: fields, framing: framing,
                               keepAlive: clientAllowsKeepAlive(framingFields.connectionOptions),
                               expectation: expectation(framingFields.expectations))
        fields = HTTPFields()
        headerBytes = 0
        return head
    }

    /// Host = uri-host [ ":" port ] (RFC 9110 7.2, RFC 3986 3.2.2); the
    /// empty value is allowed. reg-name bytes, or an IPv6 literal in brackets.
    static func isValidHost(_ value: String) -> Bool {
        var bytes = value.utf8[...]
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = bytes[bytes.index(after: bytes.startIndex)..<close]
            guard !literal.isEmpty,
                  literal.allSatisfy({ ASCII.hexValue($0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
            bytes = bytes[bytes.index(after: close)...]
        } else {
            let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            guard bytes[..<end].allSatisfy(ASCII.isRegName) else { return false }
            bytes = bytes[end...]
        }
        guard let colon = bytes.first else { return true }
        return colon == UInt8(ascii: ":") && bytes.dropFirst().allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    private func bodyFraming(_ framingFields: FramingFields) throws(HTTPParseError) -> BodyFraming {
        let transferEncodings = framingFields.transferEncodings
        let contentLengths = framingFields.contentLengths
        if !transferEncodings.isEmpty {
            if !contentLengths.isEmpty {
                throw .badRequest("Content-Length and Transfer-Encoding together are refused (request smuggling).")
            }
            if version == .http1_0 {
                throw .badRequest("Transfer-Encoding is not defined for HTTP/1.0 requests.")
            }
            let codings = FieldList.elements(transferEncodings).filter { !$0.isEmpty }
            guard codings.last == "chunked", codings.filter({ $0 == "chunked" }).count == 1 else {
                throw .badRequest("Transfer-Encoding must end in 'chunked', exactly once.")
            }
            if codings.count > 1 {
                throw HTTPParseError(status: .notImplemented, code: "transfer_coding_not_implemented",
                                     detail: "Only the 'chunked' transfer coding is implemented.")
            }
            return .chunked
        }
        guard let lengthText = contentLengths.first else { return .none }
        guard contentLengths.count == 1, !lengthText.contains(",") else {
            throw .badRequest("Content-Length must appear once with a single value.")
        }
        guard !lengthText.isEmpty, lengthText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw .badRequest("Content-Length must be a non-negative decimal integer.")
        }
        guard lengthText.utf8.count <= 15, let length = Int(lengthText), length <= limits.maxBodyBytes else {
            throw bodyTooLarge()
        }
        return length == 0 ? .none : .length(length)
    }

    private func clientAllowsKeepAlive(_ connectionFields: [String]) -> Bool {
        guard !connectionFields.isEmpty else { return version == .http1_1 }
        let options = FieldList.elements(connectionFields)
        if options.contains("close") { return false }
        return version == .http1_1 || options.contains("keep-alive")
    }

    private func expectation(_ values: [String]) -> Expectation {
        guard !values.isEmpty else { return .none }
        let joined = values.joined(separator: ", ")
        if ASCII.lowercased(joined.trimmingWhitespace()) == "100-continue" {
            // RFC 9110 10.1.1: a 100-continue from an HTTP/1.0 client is ignored.
            return version == .http1_1 ? .continue100 : .none
        }
        return .unsupported(joined)
    }

    // MARK: Chunks

    private func chunkSize(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) -> Int {
        do throws(ChunkSizeLine.Failure) {
            return try ChunkSizeLine.parse(line)
        } catch {
            switch error {
            case .tooLarge: throw bodyTooLarge()
            case .malformed(let detail): throw .badRequest(detail, code: "invalid_chunk")
            }
        }
    }

    private mutating func finishBody() -> Event {
        let event = Event.body(body, trailers: trailerFields)
        body = []
        trailerFields = HTTPFields()
        headerBytes = 0
        state = .requestLine
        return event
    }
}

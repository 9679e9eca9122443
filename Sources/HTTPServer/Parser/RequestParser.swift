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
    /// How far into the unconsumed bytes the current line has been searched,
    /// so a line arriving a byte at a time is scanned once, not quadratically.
    private var scanned = 0

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
        if case .requestLine = state { return scanned == 0 }
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
                let size = try parseChunkSize(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
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
        let (name, value) = try parseFieldLine(line)
        if trailer { trailerFields.append(name, value) } else { fields.append(name, value) }
        return false
    }

    // MARK: Lines

    /// Finds the CRLF ending the line that starts at `start`. Returns the index
    /// of its CR, or nil when more bytes are needed. A line longer than
    /// `limit` (complete or not) throws `error`; a bare LF is refused.
    private mutating func nextLine(_ bytes: UnsafeRawBufferPointer, from start: Int, limit: Int,
                                   kind: LineKind) throws(HTTPParseError) -> Int? {
        var index = start + scanned
        while index < bytes.count {
            if bytes[index] == ASCII.lf {
                // The length first, with the same bound as a line still
                // arriving (below), so the answer does not depend on how the
                // bytes were segmented.
                guard index - start <= limit + 1 else { throw lineTooLong(kind) }
                guard index > start, bytes[index - 1] == ASCII.cr else {
                    throw .badRequest("A line ends in a bare LF; lines must end in CRLF.")
                }
                scanned = 0
                return index - 1
            }
            index += 1
        }
        scanned = index - start
        // Without its CR LF yet, the line is already over the limit.
        if scanned > limit + 1 { throw lineTooLong(kind) }
        return nil
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
        guard bytes.count == 8, bytes.starts(with: "HTTP/".utf8), bytes[6] == UInt8(ascii: "."),
              let major = decimalDigit(bytes[5]), let minor = decimalDigit(bytes[7])
        else { throw .badRequest("The HTTP version is malformed.") }
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

    private func decimalDigit(_ byte: UInt8) -> Int? {
        (byte >= 0x30 && byte <= 0x39) ? Int(byte - 0x30) : nil
    }

    // MARK: Field lines

    private func parseFieldLine(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) -> (String, String) {
        if line[0] == ASCII.space || line[0] == ASCII.tab {
            throw .badRequest("Obsolete line folding (obs-fold) is not accepted.")
        }
        guard let colon = line.firstIndex(of: ASCII.colon) else {
            throw .badRequest("A header line has no colon.")
        }
        guard colon > 0 else { throw .badRequest("A header field has an empty name.") }
        let nameBytes = UnsafeRawBufferPointer(rebasing: line[0..<colon])
        if let last = nameBytes.last, last == ASCII.space || last == ASCII.tab {
            throw .badRequest("Whitespace between a header field name and the colon is not allowed.")
        }
        guard nameBytes.allSatisfy(ASCII.isToken) else {
            throw .badRequest("A header field name contains an invalid character.")
        }
        var start = colon + 1
        var end = line.count
        while start < end, line[start] == ASCII.space || line[start] == ASCII.tab { start += 1 }
        while end > start, line[end - 1] == ASCII.space || line[end - 1] == ASCII.tab { end -= 1 }
        let valueBytes = UnsafeRawBufferPointer(rebasing: line[start..<end])
        guard valueBytes.allSatisfy(ASCII.isFieldValue) else {
            throw .badRequest("A header field value contains NUL, CR, LF or another control character.")
        }
        // Lowercased straight into the String's storage: names up to 15
        // bytes (nearly all) are then small strings, held inline with no
        // allocation, and no temporary array as decoding a lazy map makes.
        let name = String(unsafeUninitializedCapacity: nameBytes.count) { buffer in
            for (index, byte) in nameBytes.enumerated() { buffer[index] = ASCII.lowercased(byte) }
            return nameBytes.count
        }
        return (name, String(decoding: valueBytes, as: UTF8.self))
    }

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
            let codings = transferEncodings.flatMap { $0.split(separator: ",") }
                .map { ASCII.lowercased($0.trimmingWhitespace()) }
                .filter { !$0.isEmpty }
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
        let options = connectionFields.flatMap { $0.split(separator: ",") }
            .map { ASCII.lowercased($0.trimmingWhitespace()) }
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

    private func parseChunkSize(_ line: UnsafeRawBufferPointer) throws(HTTPParseError) -> Int {
        var size = 0
        var index = 0
        while index < line.count, let digit = ASCII.hexValue(line[index]) {
            guard index < 15 else { throw bodyTooLarge() }
            size = size << 4 | Int(digit)
            index += 1
        }
        guard index > 0 else { throw .badRequest("A chunk size is not a hexadecimal number.", code: "invalid_chunk") }
        // chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-value ] ): accepted, not interpreted.
        let extensions = UnsafeRawBufferPointer(rebasing: line[index...])
        if !extensions.isEmpty {
            let firstNonBlank = extensions.first { $0 != ASCII.space && $0 != ASCII.tab }
            guard firstNonBlank == UInt8(ascii: ";"), extensions.allSatisfy(ASCII.isFieldValue) else {
                throw .badRequest("A chunk size is followed by something other than a chunk extension.",
                                  code: "invalid_chunk")
            }
        }
        return size
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

extension StringProtocol {
    /// Drops leading and trailing SP and HTAB (OWS in RFC 9110).
    func trimmingWhitespace() -> Substring {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }
}

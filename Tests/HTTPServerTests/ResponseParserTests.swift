import Testing
@testable import HTTPServer

// Unit tests of ResponseParser (RFC 9112 sections 4, 6.3, 7.1). Every case
// is fed whole, one byte at a time and split in two at every offset, and
// must come out the same each time.

/// What a feeding produced, as the tests compare it.
private struct ResponseOutcome: Equatable, CustomStringConvertible {
    var status: Int?
    var version: HTTPVersion?
    var reason = ""
    var headers: [HTTPFields.Field] = []
    var body = ""
    var truncated = false
    var keepAlive = false
    var error: ResponseParseError?
    /// Bytes left after the response (only compared without an error).
    var unconsumed = 0

    static func == (lhs: ResponseOutcome, rhs: ResponseOutcome) -> Bool {
        lhs.status == rhs.status && lhs.version == rhs.version && lhs.reason == rhs.reason && lhs.headers == rhs.headers
            && lhs.body == rhs.body && lhs.truncated == rhs.truncated && lhs.keepAlive == rhs.keepAlive
            && lhs.error == rhs.error && (lhs.error != nil || lhs.unconsumed == rhs.unconsumed)
    }

    var description: String {
        if let error { return "error: \(error.reason)" }
        guard let status else { return "incomplete, unconsumed \(unconsumed)" }
        return "\(status) \(reason.debugDescription) \(headers.map { "\($0.name)=\($0.value)" }) body \(body.debugDescription) "
            + "truncated=\(truncated) keepAlive=\(keepAlive) unconsumed=\(unconsumed)"
    }
}

/// Feeds `input` arriving in pieces that end at `cuts`, then (with
/// `closed`) the end of the stream, the way the outbound client does.
private func feedResponse(_ input: [UInt8], cuts: [Int], limits: ParserLimits, head: Bool, closed: Bool) -> ResponseOutcome {
    var parser = ResponseParser(limits: limits, respondingToHead: head)
    var outcome = ResponseOutcome()
    var buffer: [UInt8] = []
    var start = 0
    func take(_ response: ReceivedResponse) {
        outcome.status = response.status
        outcome.version = response.version
        outcome.reason = response.reason
        outcome.headers = Array(response.headers)
        outcome.body = String(decoding: response.body, as: UTF8.self)
        outcome.truncated = response.bodyTruncated
        outcome.keepAlive = response.keepAlive
    }
    for end in cuts + [input.count] where end >= start {
        buffer += input[start..<end]
        start = end
        let result: Result<(consumed: Int, response: ReceivedResponse?), ResponseParseError> = buffer.withUnsafeBytes { bytes in
            do throws(ResponseParseError) { return .success(try parser.parse(bytes)) } catch { return .failure(error) }
        }
        switch result {
        case .failure(let error):
            outcome.error = error
            return outcome
        case .success(let (consumed, response)):
            precondition(consumed >= 0 && consumed <= buffer.count, "consumed \(consumed) of \(buffer.count)")
            buffer.removeFirst(consumed)
            if let response {
                take(response)
                outcome.unconsumed = buffer.count + (input.count - start)
                return outcome
            }
        }
    }
    if closed, let response = parser.finish() { take(response) }
    outcome.unconsumed = buffer.count
    return outcome
}

/// Feeds `text` whole, byte by byte and split at every offset; expects the
/// same outcome each time and returns it.
@discardableResult
private func parseResponse(_ text: String, limits: ParserLimits = ParserLimits(), head: Bool = false, closed: Bool = false,
                           sourceLocation: SourceLocation = #_sourceLocation) -> ResponseOutcome {
    let input = Array(text.utf8)
    let whole = feedResponse(input, cuts: [], limits: limits, head: head, closed: closed)
    let byteByByte = feedResponse(input, cuts: input.count > 1 ? Array(1..<input.count) : [], limits: limits, head: head,
                                  closed: closed)
    #expect(byteByByte == whole, "byte by byte: \(byteByByte)\nwhole: \(whole)", sourceLocation: sourceLocation)
    for offset in 0...input.count {
        let split = feedResponse(input, cuts: [offset], limits: limits, head: head, closed: closed)
        if split != whole {
            Issue.record("split at \(offset): \(split)\nwhole: \(whole)", sourceLocation: sourceLocation)
            break
        }
    }
    return whole
}

private func fieldList(_ pairs: KeyValuePairs<String, String>) -> [HTTPFields.Field] {
    pairs.map { HTTPFields.Field(name: $0.key, value: $0.value) }
}

@Suite("ResponseParser") struct ResponseParserTests {
    /// One accepted response per row: what it reads as.
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        var head = false
        var closed = false
        var limits = ParserLimits()
        let status: Int
        var body = ""
        var keepAlive = true
        var truncated = false
        var unconsumed = 0

        var testDescription: String { name }
    }

    static let accepted: [Row] = [
        Row(name: "a length-delimited body", text: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", status: 200, body: "hello"),
        Row(name: "a reason with spaces and obs-text", text: "HTTP/1.1 404 Not \u{e9}t\u{e9} found\r\nContent-Length: 0\r\n\r\n",
            status: 404),
        Row(name: "no reason phrase after the space", text: "HTTP/1.1 200 \r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok"),
        Row(name: "no space after the code", text: "HTTP/1.1 201\r\nContent-Length: 2\r\n\r\nok", status: 201, body: "ok"),
        Row(name: "chunked with extensions and trailers",
            text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: t\r\n\r\n",
            status: 200, body: "hello world"),
        Row(name: "chunked, the coding in any case", text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
            status: 200, body: "hi"),
        Row(name: "204 ignores its Content-Length", text: "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", status: 204),
        Row(name: "304 has no body", text: "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n", status: 304),
        Row(name: "a HEAD response has no body", text: "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", head: true, status: 200),
        Row(name: "1xx interim responses are skipped",
            text: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
            status: 200, body: "x"),
        Row(name: "read until close", text: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it", closed: true,
            status: 200, body: "all of it", keepAlive: false),
        Row(name: "Connection: close", text: "HTTP/1.1 410 Gone\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n",
            status: 410, keepAlive: false),
        Row(name: "HTTP/1.0 closes by default", text: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok",
            keepAlive: false),
        Row(name: "HTTP/1.0 with keep-alive", text: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
            status: 200, body: "ok"),
        Row(name: "HTTP/1.2 reads as 1.1", text: "HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n", status: 200),
        Row(name: "repeated equal Content-Length values", text: "HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc",
            status: 200, body: "abc"),
        Row(name: "bytes after the response are left", text: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1", status: 200,
            body: "ok", unconsumed: 8),
        Row(name: "a length body over the cap is truncated",
            text: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789", limits: ParserLimits(maxBodyBytes: 4), status: 200,
            body: "0123", keepAlive: false, truncated: true, unconsumed: 6),
        Row(name: "a length body exactly at the cap is whole",
            text: "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n0123", limits: ParserLimits(maxBodyBytes: 4), status: 200, body: "0123"),
        Row(name: "a chunked body over the cap is truncated",
            text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n012\r\n3\r\n345\r\n0\r\n\r\n",
            limits: ParserLimits(maxBodyBytes: 4), status: 200, body: "0123", keepAlive: false, truncated: true, unconsumed: 9),
        Row(name: "a chunked body that fills the cap exactly is whole",
            text: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n01\r\n2\r\n23\r\n0\r\n\r\n",
            limits: ParserLimits(maxBodyBytes: 4), status: 200, body: "0123"),
        Row(name: "a body read to close over the cap is truncated",
            text: "HTTP/1.1 200 OK\r\n\r\n0123456789", closed: true, limits: ParserLimits(maxBodyBytes: 4), status: 200, body: "0123",
            keepAlive: false, truncated: true, unconsumed: 6),
    ]

    @Test(arguments: accepted)
    func readsAs(_ row: Row) {
        let outcome = parseResponse(row.text, limits: row.limits, head: row.head, closed: row.closed)
        #expect(outcome.error == nil, "\(outcome)")
        #expect(outcome.status == row.status)
        #expect(outcome.body == row.body)
        #expect(outcome.keepAlive == row.keepAlive)
        #expect(outcome.truncated == row.truncated)
        #expect(outcome.unconsumed == row.unconsumed)
    }

    @Test func theStatusLineAndFieldsAreKeptAsReceived() {
        let outcome = parseResponse("HTTP/1.1 429 Too Many Requests\r\nRetry-After:  7 \r\nX-A: 1\r\nx-a: 2\r\nContent-Length: 0\r\n\r\n")
        #expect(outcome.version == .http1_1)
        #expect(outcome.reason == "Too Many Requests")
        #expect(outcome.headers == fieldList(["retry-after": "7", "x-a": "1", "x-a": "2", "content-length": "0"]))
    }

    @Test func aResponseIsIncompleteUntilItsLastByte() {
        let text = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhell"
        #expect(parseResponse(text).status == nil)
        // A close before the length is reached is no response either.
        #expect(parseResponse(text, closed: true).status == nil)
        #expect(parseResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", closed: true).status == nil)
        #expect(parseResponse("HTTP/1.1 200 OK\r\nContent-Le", closed: true).status == nil)
    }

    /// Refused however they arrive, each with its reason.
    static let refused: [(name: String, text: String, reason: String)] = [
        ("not HTTP", "SSH-2.0-OpenSSH_9.6\r\n\r\n", "The status line is not 'HTTP/1.x NNN reason'."),
        ("a two-digit code", "HTTP/1.1 20 OK\r\n\r\n", "The status line is not 'HTTP/1.x NNN reason'."),
        ("a code above 599", "HTTP/1.1 600 Odd\r\n\r\n", "The status code 600 is invalid."),
        ("HTTP/2 on the wire", "HTTP/2.0 200 OK\r\n\r\n", "The response is not HTTP/1.x."),
        ("a code run into the reason", "HTTP/1.1 200OK\r\n\r\n", "The status line is not 'HTTP/1.x NNN reason'."),
        ("a control byte in the reason", "HTTP/1.1 200 O\u{1}K\r\n\r\n", "The reason phrase contains control characters."),
        ("a bare LF", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", "A line ends in a bare LF; lines must end in CRLF."),
        ("obs-fold", "HTTP/1.1 200 OK\r\nX-A: 1\r\n  2\r\nContent-Length: 0\r\n\r\n",
         "Obsolete line folding (obs-fold) is not accepted."),
        ("a space before the colon", "HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n",
         "Whitespace between a header field name and the colon is not allowed."),
        ("a field without a colon", "HTTP/1.1 200 OK\r\nX-A\r\n\r\n", "A header line has no colon."),
        ("a NUL in a value", "HTTP/1.1 200 OK\r\nX-A: a\u{0}b\r\n\r\n",
         "A header field value contains NUL, CR, LF or another control character."),
        ("conflicting lengths", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
         "Conflicting Content-Length values."),
        ("a listed conflicting length", "HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\nabcd", "Conflicting Content-Length values."),
        ("a negative length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "Content-Length is not a decimal number."),
        ("an empty length", "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", "Content-Length is not a decimal number."),
        ("a length past Int", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
         "Content-Length is not a decimal number."),
        ("both framings", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
         "Content-Length and Transfer-Encoding together are refused (response splitting)."),
        ("another transfer coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
         "A transfer coding other than chunked alone."),
        ("chunked twice", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
         "A transfer coding other than chunked alone."),
        ("Transfer-Encoding in HTTP/1.0", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
         "Transfer-Encoding in an HTTP/1.0 response."),
        ("a bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "A chunk size is not a hexadecimal number."),
        ("a chunk size past 15 digits", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n",
         "A chunk size exceeds 15 hexadecimal digits."),
        ("chunk data without its CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhiX\r\n0\r\n\r\n",
         "Chunk data is not followed by CRLF."),
        ("an unasked 101", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n", "A 101 Switching Protocols nobody asked for."),
    ]

    @Test(arguments: refused.indices)
    func isRefused(_ index: Int) {
        let row = Self.refused[index]
        let outcome = parseResponse(row.text, closed: true)
        #expect(outcome.error == ResponseParseError(row.reason), "\(row.name): \(outcome)")
        #expect(outcome.status == nil, "\(row.name)")
    }

    @Test func theHeadSectionIsBoundedAcrossInterimResponses() {
        let limits = ParserLimits(maxHeaderBytes: 64, maxHeaderCount: 2)
        let tooLong = "The response head or its trailers exceed 64 bytes."
        #expect(parseResponse("HTTP/1.1 200 OK\r\nX-Long: \(String(repeating: "a", count: 60))\r\n\r\n", limits: limits).error
                == ResponseParseError(tooLong))
        // Each interim head alone fits; together they do not.
        let interim = "HTTP/1.1 100 Continue\r\n\r\n"
        #expect(parseResponse(String(repeating: interim, count: 3) + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
                              limits: limits).error == ResponseParseError(tooLong))
        #expect(parseResponse("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits).error
                == ResponseParseError("More than 2 header fields."))
        // A status line still arriving is refused once it is over the limit.
        #expect(parseResponse("HTTP/1.1 200 " + String(repeating: "x", count: 80), limits: limits).error
                == ResponseParseError(tooLong))
    }

    @Test func aSpentParserReadsNothingMore() throws {
        var parser = ResponseParser(limits: ParserLimits())
        let text = Array("HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\n\r\n".utf8)
        let first = try step(&parser, text).get()
        #expect(first.response?.status == 204)
        #expect(first.consumed == 27)
        let again = try step(&parser, Array(text[27...])).get()
        #expect(again.consumed == 0 && again.response == nil)
        #expect(parser.finish() == nil)
    }

    private func step(_ parser: inout ResponseParser, _ bytes: [UInt8])
        -> Result<(consumed: Int, response: ReceivedResponse?), ResponseParseError> {
        bytes.withUnsafeBytes { bytes in
            do throws(ResponseParseError) { return .success(try parser.parse(bytes)) } catch { return .failure(error) }
        }
    }
}

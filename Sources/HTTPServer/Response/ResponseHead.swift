/// Serializes a response's status line and header section (RFC 9112 4, 6).
/// The server decides the framing fields; a handler's own `Content-Length`,
/// `Transfer-Encoding`, `Connection` or `Date` are dropped so they cannot
/// contradict the bytes actually sent.
enum ResponseHead {
    enum Framing {
        /// `Content-Length: n` (also used for HEAD, with the GET body's length).
        case length(Int)
        /// `Transfer-Encoding: chunked` (HTTP/1.1 streams).
        case chunked
        /// Neither: the body ends when the connection closes (HTTP/1.0 streams).
        case closeDelimited
        /// 1xx, 204, 304: no content and no length field.
        case noContent
    }

    private static let reservedNames = ["content-length", "transfer-encoding", "connection", "date"]

    private static func isReserved(_ name: String) -> Bool {
        reservedNames.contains { HTTPFields.namesMatch($0, name) }
    }

    /// `keepAlive` false adds `Connection: close`; `echoKeepAlive` adds
    /// `Connection: keep-alive` for HTTP/1.0 clients that asked for it.
    static func serialize(status: HTTPStatus, headers: HTTPFields, framing: Framing,
                          keepAlive: Bool, echoKeepAlive: Bool, requestID: String,
                          fields: ExchangeFields = ExchangeFields()) -> [UInt8] {
        var head: [UInt8] = []
        head.reserveCapacity(capacity(for: headers) + fields.capacity)
        write(status: status, headers: headers, framing: framing, keepAlive: keepAlive,
              echoKeepAlive: echoKeepAlive, requestID: requestID, fields: fields, into: &head)
        return head
    }

    /// Room for a head with `headers` and `bodyCount` bytes behind it.
    static func capacity(for headers: HTTPFields, bodyCount: Int = 0) -> Int {
        192 + bodyCount + headers.count * 32
    }

    /// `serialize`, appending to `head`. The exchange policies' `fields`
    /// (trace context, caching, rate limits) are written here like the
    /// request id rather than added to the handler's fields: adding them
    /// would copy the handler's list, often a shared one (an allocation per
    /// request).
    static func write(status: HTTPStatus, headers: HTTPFields, framing: Framing, keepAlive: Bool,
                      echoKeepAlive: Bool, requestID: String, fields: ExchangeFields = ExchangeFields(),
                      into head: inout [UInt8]) {
        // A server sends its own highest version, HTTP/1.1, whatever the request's (RFC 9110 2.5).
        head.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status.code, to: &head)
        head.append(ASCII.space)
        head.append(contentsOf: status.reasonPhrase.utf8)
        head.append(contentsOf: "\r\n".utf8)
        HTTPDate.appendHeaderLine(to: &head)
        for field in headers where !isReserved(field.name) {
            head.append(contentsOf: field.name.utf8)
            head.append(contentsOf: ": ".utf8)
            head.append(contentsOf: field.value.utf8)
            head.append(contentsOf: "\r\n".utf8)
        }
        if !requestID.isEmpty, !headers.contains("x-request-id") {
            head.append(contentsOf: "X-Request-Id: ".utf8)
            head.append(contentsOf: requestID.utf8)
            head.append(contentsOf: "\r\n".utf8)
        }
        fields.write(into: &head)
        switch framing {
        case .length(let length):
            head.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(length, to: &head)
            head.append(contentsOf: "\r\n".utf8)
        case .chunked: head.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        case .closeDelimited, .noContent: break
        }
        if !keepAlive {
            head.append(contentsOf: "Connection: close\r\n".utf8)
        } else if echoKeepAlive {
            head.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        head.append(contentsOf: "\r\n".utf8)
    }

    /// Queues the bytes of a complete (not streamed) response on `output`. HEAD gets the GET headers, with the body's length, and no body.
    /// Small bodies ride in the head's buffer (one segment); big ones are
    /// returned as they are, never copied.
    static func encodeComplete(_ response: HTTPResponse, version: HTTPVersion, requestID: String,
                               fields: ExchangeFields = ExchangeFields(),
                               keepAlive: Bool, isHead: Bool, into output: inout OutputQueue) {
        let body: [UInt8]
        switch response.body {
        case .bytes(let bytes): body = bytes
        case .empty, .stream: body = []
        }
        let framing: Framing
        if response.status.forbidsContent {
            framing = .noContent
        } else if isHead, case .stream = response.body {
            framing = version == .http1_1 ? .chunked : .closeDelimited
        } else {
            framing = .length(body.count)
        }
        let sendsBody = !isHead && !response.status.forbidsContent && !body.isEmpty
        let inline = sendsBody && body.count <= inlineBodyLimit
        let room = capacity(for: response.headers, bodyCount: inline ? body.count : 0) + fields.capacity
        output.appendHead(reservingCapacity: room) { head in
            write(status: response.status, headers: response.headers, framing: framing, keepAlive: keepAlive,
                  echoKeepAlive: version == .http1_0, requestID: requestID, fields: fields, into: &head)
            if inline { head.append(contentsOf: body) }
        }
        if sendsBody && !inline { output.append(body) }
    }

    /// Bodies up to this size are copied behind the head: one small copy is
    /// cheaper than another iovec and allocation.
    static let inlineBodyLimit = 2048

    /// Appends a non-negative integer's decimal digits without building a String.
    static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var remaining = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(truncatingIfNeeded: remaining % 10) + UInt8(ascii: "0")
                remaining /= 10
                count += 1
            } while remaining > 0 && count < 20
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }

    static let continue100: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}

extension OutboundHTTPRequest {
    /// Fields the client writes itself, whatever the caller passed.
    private static let ownedFields: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]

    /// The request as it goes on the wire (RFC 9112 3, 5, 6): the request
    /// line, `Host`, `User-Agent`, the caller's fields, `Content-Length`
    /// whenever there is a body or the method expects one, then the body.
    /// A method that is not a token, or a field name or value that is not
    /// valid, is refused here: a CR or LF in one would let its author write
    /// a request of their own into the stream.
    func encoded() throws(OutboundHTTPError) -> [UInt8] {
        guard !method.isEmpty, method.utf8.allSatisfy(Self.isToken) else {
            throw .invalidRequest("the method '\(method)' is not a token")
        }
        var callerFields: [(name: String, value: String)] = []
        for field in headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(Self.isToken) else {
                throw .invalidRequest("the header name '\(field.name)' is not a token")
            }
            guard field.value.utf8.allSatisfy(Self.isFieldValue) else {
                throw .invalidRequest("the value of '\(field.name)' holds a control character")
            }
            if !Self.ownedFields.contains(field.name.lowercased()) { callerFields.append(field) }
        }
        var head = "\(method) \(url.target) HTTP/1.1\r\nHost: \(url.authority)\r\n"
        if !callerFields.contains(where: { $0.name.lowercased() == "user-agent" }) { head += "User-Agent: axiom-server\r\n" }
        for field in callerFields { head += "\(field.name): \(field.value)\r\n" }
        // RFC 9110 8.6: a length for any content, and for an empty body
        // when the method expects one.
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    /// tchar (RFC 9110 5.6.2).
    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// field-vchar, SP or HTAB (RFC 9110 5.5).
    private static func isFieldValue(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }
}

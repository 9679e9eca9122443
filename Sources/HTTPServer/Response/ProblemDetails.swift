/// Renders RFC 9457 problem details as `application/problem+json`. Used for
/// every error the server itself produces and for `HTTPError`s thrown by
/// handlers, so all errors share one shape:
/// `{"type","title","status","code","detail","request_id", …extensions}`.
enum ProblemDetails {
    static let contentType = "application/problem+json"

    static func response(for error: HTTPError, requestID: String) -> HTTPResponse {
        var json = "{\"type\":\"about:blank\",\"title\":"
        JSONString.append(error.status.reasonPhrase, to: &json)
        json += ",\"status\":\(error.status.code),\"code\":"
        JSONString.append(error.code, to: &json)
        json += ",\"detail\":"
        JSONString.append(error.detail, to: &json)
        json += ",\"request_id\":"
        JSONString.append(requestID, to: &json)
        for (name, encodedValue) in error.extensions {
            json += ","
            JSONString.append(name, to: &json)
            json += ":" + encodedValue
        }
        json += "}"
        var headers = error.headers
        headers.set("Content-Type", contentType)
        return HTTPResponse(status: error.status, headers: headers, body: .bytes(Array(json.utf8)))
    }

    /// The body with a `trace_id` member before its closing brace. Problems
    /// are made before the trace is settled (at admission, in handlers), so
    /// the member is added as the response leaves; a trace id is hex, no
    /// escaping needed.
    static func addingTraceID(_ traceID: String, to body: HTTPResponse.Body) -> HTTPResponse.Body {
        guard case .bytes(var bytes) = body, bytes.last == UInt8(ascii: "}") else { return body }
        bytes.removeLast()
        bytes.append(contentsOf: ",\"trace_id\":\"".utf8)
        bytes.append(contentsOf: traceID.utf8)
        bytes.append(contentsOf: "\"}".utf8)
        return .bytes(bytes)
    }
}

/// Minimal JSON string encoding for the server's own error bodies, which
/// echo client-supplied text (paths, methods) and so must escape it.
public enum JSONString {
    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var json = ""
        append(text, to: &json)
        return json
    }

    /// Appends `text` as a JSON string literal: quotes, backslash and control
    /// characters escaped, and U+2028/U+2029 too (they end lines in
    /// JavaScript). Text that needs no escape, the usual case, is appended
    /// as it is.
    public static func append(_ text: String, to json: inout String) {
        json += "\""
        if !text.utf8.contains(where: mayNeedEscape) {
            json += text
        } else {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": json += "\\\""
                case "\\": json += "\\\\"
                case "\n": json += "\\n"
                case "\r": json += "\\r"
                case "\t": json += "\\t"
                case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029:
                    let hex = String(scalar.value, radix: 16)
                    json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: json.unicodeScalars.append(scalar)
                }
            }
        }
        json += "\""
    }

    public static func encode(_ text: String) -> String {
        var json = ""
        append(text, to: &json)
        return json
    }

    /// 0xE2 leads the UTF-8 of U+2028 and U+2029 (and of other characters,
    /// which the careful path then passes through unchanged).
    private static func mayNeedEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F || byte == 0xE2
    }
}

import Formats

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

/// JSON string literals for the server's own error bodies and log lines,
/// which echo client-supplied text (paths, methods) and so must escape it,
/// as every JSON document is escaped (`JSONBytes.string`).
public enum JSONString {
    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var json = ""
        append(text, to: &json)
        return json
    }

    /// Appends `text` as a JSON string literal.
    public static func append(_ text: String, to json: inout String) {
        guard JSONBytes.needsEscaping(text) else {
            json += "\""
            json += text
            json += "\""
            return
        }
        var literal = JSONBytes(capacity: text.utf8.count + 8)
        literal.string(text)
        json += String(decoding: literal.bytes, as: UTF8.self)
    }

    public static func encode(_ text: String) -> String {
        quoted(text)
    }
}

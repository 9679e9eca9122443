/// When a complete response body is sent gzip-encoded: the client accepts
/// gzip, the body is at least `minimumBytes`, and it is not already encoded
/// or a stream (`text/event-stream` is never buffered, so never compressed).
public struct CompressionPolicy: Sendable {
    public var minimumBytes: Int
    /// zlib level: 1, since higher levels cost several times the CPU for
    /// slightly smaller output (docs/http-engine.md).
    public var level: Int32

    public init(minimumBytes: Int = 1024, level: Int32 = 1) {
        self.minimumBytes = minimumBytes
        self.level = level
    }

    /// Whether the representation varies with `Accept-Encoding`: a body we
    /// would compress for some client (so caches must key on the field).
    func isCompressible(_ response: HTTPResponse) -> Bool {
        guard case .bytes(let body) = response.body, body.count >= minimumBytes,
              !response.status.forbidsContent, !response.headers.contains("content-encoding") else { return false }
        guard let type = response.headers["content-type"] else { return true }
        return !type.lowercased().hasPrefix("text/event-stream")
    }
}

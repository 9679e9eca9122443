/// Everything the protocol layer needs to know: where to listen, and the
/// limits and timeouts that keep one client from pinning the server.
public struct HTTPServerConfiguration: Sendable {
    public var host: String
    /// 0 lets the kernel pick a free port; `HTTPServer.start()` returns it.
    public var port: Int
    public var backlog: Int32
    public var limits: ParserLimits
    /// A request's header section must be complete this long after its first byte (→ 408).
    public var headerTimeout: Duration
    /// A request body must make progress at least this often (→ 408).
    public var bodyTimeout: Duration
    /// A keep-alive connection with no request in progress is closed after this.
    public var idleTimeout: Duration
    /// A client that stops reading its responses is disconnected after this.
    public var writeTimeout: Duration
    /// Connections beyond this are answered 503 and closed.
    public var maxConnections: Int
    /// In-flight requests get this long to finish after shutdown begins.
    public var shutdownDeadline: Duration
    /// Stop reading a connection once this many response bytes wait for it.
    public var outputHighWatermark: Int

    public init(host: String = "127.0.0.1", port: Int = 8080, backlog: Int32 = 1024,
                limits: ParserLimits = ParserLimits(), headerTimeout: Duration = .seconds(10),
                bodyTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60),
                writeTimeout: Duration = .seconds(30), maxConnections: Int = 10_000,
                shutdownDeadline: Duration = .seconds(10), outputHighWatermark: Int = 256 * 1024) {
        self.host = host
        self.port = port
        self.backlog = backlog
        self.limits = limits
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.maxConnections = maxConnections
        self.shutdownDeadline = shutdownDeadline
        self.outputHighWatermark = outputHighWatermark
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

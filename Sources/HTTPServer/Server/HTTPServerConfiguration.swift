import Glibc

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
    /// After `bodyGrace`, a body's average rate must stay at or above this
    /// many bytes per second (0 = no minimum), and the whole body must
    /// arrive within `bodyTotalTimeout` (→ 408): a byte every few seconds
    /// would otherwise hold a connection forever, each byte resetting
    /// `bodyTimeout`.
    public var bodyMinRate: Int
    public var bodyGrace: Duration
    public var bodyTotalTimeout: Duration
    /// A keep-alive connection with no request in progress is closed after this.
    public var idleTimeout: Duration
    /// A client that stops reading its responses is disconnected after this.
    public var writeTimeout: Duration
    /// Connections beyond this are answered 503 and closed, once no idle
    /// connection is left to reclaim.
    public var maxConnections: Int
    /// Connections from one peer address beyond this are answered 503 and
    /// closed, so one client cannot take every slot.
    public var maxConnectionsPerAddress: Int
    /// Peer addresses exempt from `maxConnectionsPerAddress` (load
    /// balancers, whose address every client shares).
    public var trustedProxies: Set<String>
    /// Request body bytes buffered across all connections; a request whose
    /// body would exceed it is answered 503 with Retry-After.
    public var maxBufferedBodyBytes: Int
    /// In-flight requests get this long to finish after shutdown begins.
    public var shutdownDeadline: Duration
    /// Stop reading a connection once this many response bytes wait for it.
    public var outputHighWatermark: Int
    /// Event loops (threads, each with its epoll instance and its share of
    /// the connections); 0 means one per CPU the process may use (`UsableCPUs`).
    public var eventLoops: Int
    /// gzip for large enough bodies; nil sends every body as it is.
    public var compression: CompressionPolicy?
    /// Cross-origin access for browser pages; nil (or no origins) sends no CORS field.
    public var cors: CORSPolicy?
    /// Per-client request rate limit on routes whose policy says so; nil for none.
    public var rateLimit: RateLimitPolicy?
    /// Where `rateLimit` counts across processes (``ClusterTokens``); nil:
    /// this process counts alone. The owner runs `rateLimiter.shareTokens()`.
    public var sharedRateLimit: (any SharedTokenStore)?

    public init(host: String = "127.0.0.1", port: Int = 8080, backlog: Int32 = 1024,
                limits: ParserLimits = ParserLimits(), headerTimeout: Duration = .seconds(10),
                bodyTimeout: Duration = .seconds(10), bodyMinRate: Int = 500, bodyGrace: Duration = .seconds(5),
                bodyTotalTimeout: Duration = .seconds(60), idleTimeout: Duration = .seconds(60),
                writeTimeout: Duration = .seconds(30), maxConnections: Int = 10_000,
                maxConnectionsPerAddress: Int = 256, trustedProxies: Set<String> = [],
                maxBufferedBodyBytes: Int = 256 * 1024 * 1024,
                shutdownDeadline: Duration = .seconds(10), outputHighWatermark: Int = 256 * 1024,
                eventLoops: Int = 0, compression: CompressionPolicy? = nil, cors: CORSPolicy? = nil,
                rateLimit: RateLimitPolicy? = nil, sharedRateLimit: (any SharedTokenStore)? = nil) {
        self.host = host
        self.port = port
        self.backlog = backlog
        self.limits = limits
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.bodyMinRate = bodyMinRate
        self.bodyGrace = bodyGrace
        self.bodyTotalTimeout = bodyTotalTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.trustedProxies = trustedProxies
        self.maxBufferedBodyBytes = maxBufferedBodyBytes
        self.shutdownDeadline = shutdownDeadline
        self.outputHighWatermark = outputHighWatermark
        self.eventLoops = eventLoops
        self.compression = compression
        self.cors = cors
        self.rateLimit = rateLimit
        self.sharedRateLimit = sharedRateLimit
    }
}

extension HTTPServerConfiguration {
    var resolvedEventLoops: Int {
        eventLoops > 0 ? eventLoops : UsableCPUs.current.count
    }

    var bodyProgress: BodyProgressRule {
        BodyProgressRule(stallTimeout: bodyTimeout, minRate: bodyMinRate, grace: bodyGrace,
                         totalTimeout: bodyTotalTimeout)
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// How `OutboundHTTP` reaches other servers: its bounds, its connection
/// reuse, whom it trusts and which addresses it may reach.
public struct OutboundHTTPSettings: Sendable {
    /// Resolving, connecting and the TLS handshake of a new connection.
    public var connectTimeout: Duration
    /// The whole request: connect, TLS, write, and the whole response.
    public var timeout: Duration
    /// Body bytes kept of a response; a longer body is cut there.
    public var maxResponseBytes: Int
    /// A kept-alive connection unused for longer is closed.
    public var idleTimeout: Duration
    /// Idle connections kept per origin (scheme, host, port).
    public var maxIdlePerOrigin: Int
    /// PEM CA certificates to trust instead of the system's store.
    public var caFile: String?
    public var addressPolicy: AddressPolicy

    public init(connectTimeout: Duration = .seconds(5), timeout: Duration = .seconds(15), maxResponseBytes: Int = 64 * 1024,
                idleTimeout: Duration = .seconds(30), maxIdlePerOrigin: Int = 16, caFile: String? = nil,
                addressPolicy: AddressPolicy = AddressPolicy(allowsPrivate: false)) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.idleTimeout = idleTimeout
        self.maxIdlePerOrigin = maxIdlePerOrigin
        self.caFile = caFile
        self.addressPolicy = addressPolicy
    }
}

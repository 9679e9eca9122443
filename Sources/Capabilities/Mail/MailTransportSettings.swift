/// Where and how `MailTransport` reaches its SMTP server. The sender and
/// reply-to addresses are each message's own.
public struct MailTransportSettings: Sendable, Equatable {
    public enum Security: String, Sendable, Equatable {
        /// Plain text throughout (a local relay, tests); AUTH is allowed.
        case none
        /// Plain connect, then STARTTLS before anything else (RFC 3207);
        /// a server that does not offer it is refused.
        case starttls
        /// TLS from the first byte (RFC 8314, usually port 465).
        case implicit
    }

    public var host: String
    public var port: UInt16
    public var security: Security
    public var username: String?
    public var password: String?
    /// PEM CA certificates to trust instead of the system's store.
    public var caFile: String?
    /// The name this client gives in EHLO.
    public var ehloName: String
    /// Resolving, connecting and the TLS handshake.
    public var connectTimeout: Duration
    /// Each reply, and each write.
    public var commandTimeout: Duration
    /// Connections kept open at once; sends beyond wait for one.
    public var maxConnections: Int
    /// An open connection unused for longer is closed, not reused.
    public var idleTimeout: Duration

    public init(host: String, port: UInt16, security: Security, username: String? = nil, password: String? = nil,
                caFile: String? = nil, ehloName: String = "localhost", connectTimeout: Duration = .seconds(10),
                commandTimeout: Duration = .seconds(60), maxConnections: Int = 1, idleTimeout: Duration = .seconds(30)) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.caFile = caFile
        self.ehloName = ehloName
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.maxConnections = max(1, maxConnections)
        self.idleTimeout = idleTimeout
    }
}

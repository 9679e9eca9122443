/// Why an outbound connection could not be made or used. Every case is
/// about the network or the peer, never about what was sent: a caller may
/// retry any of them later.
public enum NetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host name did not resolve (getaddrinfo's reason).
    case resolutionFailed(host: String, reason: String)
    /// Every address the host resolved to was refused by the caller's
    /// admission rule (`ConnectOptions.admit`).
    case addressRefused(host: String, addresses: [String])
    /// No resolved address accepted the connection (the last reason).
    case connectFailed(host: String, reason: String)
    /// A deadline passed while waiting for `what`.
    case timedOut(String)
    /// The peer closed the connection.
    case closedByPeer
    /// The TLS handshake failed or the peer's certificate was refused
    /// (chain, validity or host name), with OpenSSL's reason.
    case tlsFailed(String)
    /// A read or write failed (errno's reason), or the connection was closed here.
    case ioFailed(String)

    public var description: String {
        switch self {
        case .resolutionFailed(let host, let reason): "cannot resolve \(host): \(reason)"
        case .addressRefused(let host, let addresses):
            "\(host) resolves only to refused addresses (\(addresses.joined(separator: ", ")))"
        case .connectFailed(let host, let reason): "cannot connect to \(host): \(reason)"
        case .timedOut(let what): "timed out \(what)"
        case .closedByPeer: "connection closed by the peer"
        case .tlsFailed(let reason): "TLS refused: \(reason)"
        case .ioFailed(let reason): "connection failed: \(reason)"
        }
    }
}

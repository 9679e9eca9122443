/// Why an outbound request got no response. Each case is about the target
/// or the way to it; whether to try again later is the caller's policy
/// (a webhook delivery retries all of them but `invalidRequest`).
public enum OutboundHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every address the host resolved to was refused by the address
    /// policy (for `check`: the refused ones, when any was).
    case addressRefused(host: String, addresses: [String])
    /// The host name did not resolve.
    case unresolvable(host: String)
    /// No resolved address accepted a connection.
    case connectFailed(String)
    /// The request's time (`OutboundHTTPSettings.timeout`, or the connect
    /// timeout) ran out; the phase it ran out in.
    case timedOut(String)
    /// The TLS handshake failed or the certificate was refused.
    case tls(String)
    /// The connection was reset or closed before a whole response.
    case connectionClosed(String)
    /// The response broke HTTP/1.1 (its syntax or framing).
    case malformedResponse(String)
    /// The request itself cannot be sent: a method or header field that is
    /// not valid HTTP (a CR or LF in a value would split the request).
    case invalidRequest(String)

    public var description: String {
        switch self {
        case .addressRefused(let host, let addresses):
            "\(host) resolves to refused addresses (\(addresses.joined(separator: ", ")))"
        case .unresolvable(let host): "cannot resolve \(host)"
        case .connectFailed(let reason): "cannot connect: \(reason)"
        case .timedOut(let phase): "timed out \(phase)"
        case .tls(let reason): "TLS: \(reason)"
        case .connectionClosed(let reason): "connection closed: \(reason)"
        case .malformedResponse(let reason): "malformed response: \(reason)"
        case .invalidRequest(let reason): "invalid request: \(reason)"
        }
    }
}

/// How `OutboundConnection.connect` reaches a host.
public struct ConnectOptions: Sendable {
    /// For resolving, connecting and (with `tls`) the handshake together.
    public var timeout: Duration
    /// Implicit TLS (RFC 8314): the handshake right after the TCP connect.
    /// Nil for a plain connection (which `startTLS` may upgrade later).
    public var tls: TLSClientContext?
    /// Asked for every resolved address before it is connected to; a
    /// refused one is skipped, and a host with no admitted address fails
    /// with `NetError.addressRefused` (a webhook target resolving to a
    /// private range, checked again at each connect against DNS rebinding).
    public var admit: @Sendable (PeerAddress) -> Bool

    public init(timeout: Duration, tls: TLSClientContext? = nil,
                admit: @escaping @Sendable (PeerAddress) -> Bool = { _ in true }) {
        self.timeout = timeout
        self.tls = tls
        self.admit = admit
    }
}

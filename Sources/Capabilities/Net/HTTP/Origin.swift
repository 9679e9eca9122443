/// Where a connection goes (RFC 6454's scheme, host and port): two
/// requests with the same origin may share a kept-alive connection, one
/// after the other.
struct Origin: Sendable, Hashable, CustomStringConvertible {
    let scheme: OutboundURL.Scheme
    let host: String
    let port: UInt16

    init(_ url: OutboundURL) {
        scheme = url.scheme
        host = url.host
        port = url.port
    }

    var description: String { "\(scheme.rawValue)://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}

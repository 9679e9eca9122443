import Glibc

/// One address a host name resolved to, and the one a connection reached:
/// the caller's admission rule sees each before it is connected to (so a
/// name that resolves to a private address can be refused at connect time,
/// after any DNS change).
public struct PeerAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case ipv4, ipv6 }

    public let family: Family
    /// 4 octets for IPv4, 16 for IPv6, in network order.
    public let octets: [UInt8]
    public let port: UInt16

    public init(family: Family, octets: [UInt8], port: UInt16) {
        self.family = family
        self.octets = octets
        self.port = port
    }

    /// The address in its textual form (`127.0.0.1`, `::1`).
    public var ip: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let af = family == .ipv4 ? AF_INET : AF_INET6
        _ = octets.withUnsafeBytes { inet_ntop(af, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { family == .ipv4 ? "\(ip):\(port)" : "[\(ip)]:\(port)" }

    /// The address as a `sockaddr_in`/`sockaddr_in6`, for connect(2).
    func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: octets) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: octets) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// The address of a `sockaddr` getaddrinfo returned; nil for other families.
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let ipv4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
            self.init(family: .ipv4, octets: withUnsafeBytes(of: ipv4.sin_addr) { Array($0) },
                      port: UInt16(bigEndian: ipv4.sin_port))
        case AF_INET6:
            let ipv6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self)
            self.init(family: .ipv6, octets: withUnsafeBytes(of: ipv6.sin6_addr) { Array($0) },
                      port: UInt16(bigEndian: ipv6.sin6_port))
        default:
            return nil
        }
    }
}

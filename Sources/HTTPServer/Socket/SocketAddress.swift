import Glibc

/// IPv4 and IPv6 socket addresses: built from a host string for bind(2), and
/// rendered as `ip:port` / `[ip]:port` for logs.
enum SocketAddress {
    /// Calls `body` with a sockaddr for `host:port`; the host must be a
    /// numeric IPv4 or IPv6 address ("localhost" is accepted as 127.0.0.1).
    static func withSockaddr<R>(host: String, port: Int,
                                _ body: (UnsafePointer<sockaddr>, socklen_t, Int32) throws -> R) throws -> R {
        let numericHost = host == "localhost" ? "127.0.0.1" : host
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, numericHost, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            return try withUnsafePointer(to: &v4) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in>.size), AF_INET)
                }
            }
        }
        var v6 = sockaddr_in6()
        let bare = numericHost.hasPrefix("[") && numericHost.hasSuffix("]") ? String(numericHost.dropFirst().dropLast()) : numericHost
        if inet_pton(AF_INET6, bare, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            return try withUnsafePointer(to: &v6) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in6>.size), AF_INET6)
                }
            }
        }
        throw SocketError("resolve host '\(host)' (a numeric IPv4/IPv6 address is required)", errno: EINVAL)
    }

    static func describe(_ storage: UnsafePointer<sockaddr_storage>) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.pointee.ss_family) {
        case AF_INET:
            return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                var ip = address.pointee.sin_addr
                inet_ntop(AF_INET, &ip, &text, socklen_t(text.count))
                return "\(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)):\(UInt16(bigEndian: address.pointee.sin_port))"
            }
        case AF_INET6:
            return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                var ip = address.pointee.sin6_addr
                inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count))
                return "[\(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))]:\(UInt16(bigEndian: address.pointee.sin6_port))"
            }
        default:
            return "unknown"
        }
    }

    /// The port a bound socket actually got (for port 0).
    static func boundPort(of fd: Int32) throws -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw SocketError("getsockname") }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        default:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        }
    }
}

import Glibc

/// getaddrinfo(3) for a stream connection: every IPv4 and IPv6 address of a
/// host, in the resolver's order (RFC 6724 preference). It blocks, so it
/// runs on a connection's own queue, never on the concurrency pool.
enum HostResolver {
    static func resolve(_ host: String, port: UInt16) throws(NetError) -> [PeerAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0 else {
            throw .resolutionFailed(host: host, reason: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(list) }
        var addresses: [PeerAddress] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr, let peer = PeerAddress(address), !addresses.contains(peer) {
                addresses.append(peer)
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw .resolutionFailed(host: host, reason: "no address") }
        return addresses
    }
}

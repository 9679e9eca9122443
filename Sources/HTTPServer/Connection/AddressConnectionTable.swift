/// Open connections per peer address, against a per-address cap; trusted
/// proxies are exempt (behind a load balancer every client shares its
/// address). Before it, 10,500 slow connections from one address held
/// every slot and a normal client got 503 on 183 of 250 requests.
struct AddressConnectionTable: Sendable, Equatable {
    let limit: Int
    let exempt: Set<String>
    private(set) var counts: [String: Int] = [:]

    init(limit: Int, exempt: Set<String>) {
        self.limit = limit
        self.exempt = exempt
    }

    /// Counts one more connection from `address` if it is under the cap.
    mutating func admit(_ address: String) -> Bool {
        if exempt.contains(address) { return true }
        let open = counts[address, default: 0]
        guard open < limit else { return false }
        counts[address] = open + 1
        return true
    }

    /// Counts one more connection from `address` beyond its cap: one of its
    /// connections is being closed to make room (`release` follows).
    mutating func admitReplacing(_ address: String) {
        guard caps(address) else { return }
        counts[address, default: 0] += 1
    }

    /// Whether connections from `address` are counted against the cap.
    func caps(_ address: String) -> Bool { !exempt.contains(address) }

    /// Forgets one connection `admit` counted.
    mutating func release(_ address: String) {
        guard !exempt.contains(address), let open = counts[address] else { return }
        counts[address] = open > 1 ? open - 1 : nil
    }

    /// The address part of a peer as `SocketAddress.describe` writes it
    /// ("127.0.0.1:5000" → "127.0.0.1", "[::1]:5000" → "::1").
    static func host(ofPeer peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        let host = peer[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { return String(host.dropFirst().dropLast()) }
        return String(host)
    }
}

/// Which addresses an outbound connection may reach. A webhook's target is
/// chosen by whoever registers the endpoint; without this, it could point
/// the server at its own loopback, its network's private ranges or a
/// cloud metadata service (server-side request forgery). The policy is
/// applied to every address a name resolves to, at each connect.
///
/// With `allowsPrivate` false only globally routable unicast addresses are
/// admitted (the IANA special-purpose registries, RFC 6890 and its
/// updates); an IPv6 address that carries an IPv4 one (mapped, NAT64,
/// 6to4) is judged by the IPv4 address. With it true (tests, a shop whose
/// receivers live on its own network), every address is admitted.
public struct AddressPolicy: Sendable {
    public let allowsPrivate: Bool

    public init(allowsPrivate: Bool) {
        self.allowsPrivate = allowsPrivate
    }

    public func admits(_ address: PeerAddress) -> Bool {
        allowsPrivate || Self.isPublic(address)
    }

    /// Whether `address` is globally routable unicast.
    public static func isPublic(_ address: PeerAddress) -> Bool {
        switch address.family {
        case .ipv4: isPublicIPv4(address.octets)
        case .ipv6: isPublicIPv6(address.octets)
        }
    }

    static func isPublicIPv4(_ octets: some Collection<UInt8>) -> Bool {
        octets.count == 4 && !refusedIPv4.contains { $0.contains(octets) }
    }

    static func isPublicIPv6(_ octets: [UInt8]) -> Bool {
        guard octets.count == 16 else { return false }
        if let embedded = embeddingIPv4.first(where: { $0.block.contains(octets) }) {
            return isPublicIPv4(octets[embedded.offset..<(embedded.offset + 4)])
        }
        return globalUnicast.contains(octets) && !refusedIPv6.contains { $0.contains(octets) }
    }

    static let refusedIPv4: [AddressBlock] = [
        AddressBlock([0, 0, 0, 0], 8),         // "this network"
        AddressBlock([10, 0, 0, 0], 8),        // private
        AddressBlock([100, 64, 0, 0], 10),     // carrier-grade NAT
        AddressBlock([127, 0, 0, 0], 8),       // loopback
        AddressBlock([169, 254, 0, 0], 16),    // link-local, cloud metadata (169.254.169.254)
        AddressBlock([172, 16, 0, 0], 12),     // private
        AddressBlock([192, 0, 0, 0], 24),      // IETF protocol assignments
        AddressBlock([192, 0, 2, 0], 24),      // documentation
        AddressBlock([192, 88, 99, 0], 24),    // retired 6to4 relay anycast
        AddressBlock([192, 168, 0, 0], 16),    // private
        AddressBlock([198, 18, 0, 0], 15),     // benchmarking
        AddressBlock([198, 51, 100, 0], 24),   // documentation
        AddressBlock([203, 0, 113, 0], 24),    // documentation
        AddressBlock([224, 0, 0, 0], 3),       // multicast, reserved, broadcast
    ]

    /// IPv6 blocks that carry an IPv4 address, and where it sits.
    static let embeddingIPv4: [(block: AddressBlock, offset: Int)] = [
        (AddressBlock([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF], 96), 12),  // ::ffff:0:0/96, IPv4-mapped
        (AddressBlock([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0], 96), 12),  // 64:ff9b::/96, NAT64
        (AddressBlock([0x20, 0x02], 16), 2),                                  // 2002::/16, 6to4
    ]

    /// 2000::/3: everything else (::, ::1, fc00::/7, fe80::/10, ff00::/8,
    /// 100::/64, 64:ff9b:1::/48 …) is outside it.
    static let globalUnicast = AddressBlock([0x20], 3)

    /// Inside 2000::/3 and still not global.
    static let refusedIPv6: [AddressBlock] = [
        AddressBlock([0x20, 0x01, 0x00, 0x00], 23),  // 2001::/23, IETF protocol assignments (Teredo among them)
        AddressBlock([0x20, 0x01, 0x0D, 0xB8], 32),  // 2001:db8::/32, documentation
        AddressBlock([0x3F, 0xFF], 20),              // 3fff::/20, documentation
    ]
}

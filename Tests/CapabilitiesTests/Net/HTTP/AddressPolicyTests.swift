import Glibc
import Testing
@testable import Capabilities

/// Every row of the address table, with the addresses at the edges of the
/// refused blocks.
@Suite struct AddressPolicyTests {
    static let rows: [(address: String, isPublic: Bool)] = [
        // IPv4
        ("8.8.8.8", true), ("1.1.1.1", true), ("93.184.215.14", true),
        ("0.0.0.0", false), ("0.255.255.255", false), ("1.0.0.0", true),
        ("10.0.0.1", false), ("10.255.255.255", false), ("11.0.0.0", true), ("9.255.255.255", true),
        ("100.63.255.255", true), ("100.64.0.0", false), ("100.127.255.255", false), ("100.128.0.0", true),
        ("127.0.0.1", false), ("127.255.255.254", false), ("128.0.0.0", true),
        ("169.254.169.254", false), ("169.254.0.1", false), ("169.255.0.1", true),
        ("172.15.255.255", true), ("172.16.0.0", false), ("172.31.255.255", false), ("172.32.0.0", true),
        ("192.0.0.8", false), ("192.0.1.1", true), ("192.0.2.1", false), ("192.0.3.1", true),
        ("192.88.99.1", false),
        ("192.167.255.255", true), ("192.168.0.1", false), ("192.168.255.255", false), ("192.169.0.0", true),
        ("198.17.255.255", true), ("198.18.0.0", false), ("198.19.255.255", false), ("198.20.0.0", true),
        ("198.51.100.7", false), ("198.51.101.7", true), ("203.0.113.9", false), ("203.0.114.9", true),
        ("223.255.255.255", true), ("224.0.0.1", false), ("239.255.255.250", false), ("240.0.0.1", false),
        ("255.255.255.255", false),
        // IPv6
        ("2606:4700:4700::1111", true), ("2a00:1450:4001::200e", true), ("2001:4860:4860::8888", true),
        ("::", false), ("::1", false), ("::127.0.0.1", false),
        ("::ffff:127.0.0.1", false), ("::ffff:10.1.2.3", false), ("::ffff:169.254.169.254", false), ("::ffff:8.8.8.8", true),
        ("64:ff9b::10.0.0.1", false), ("64:ff9b::127.0.0.1", false), ("64:ff9b::8.8.8.8", true), ("64:ff9b:1::1", false),
        ("100::1", false), ("100::ffff:ffff:ffff:ffff", false),
        ("2001::1", false), ("2001:1ff:ffff::1", false), ("2001:200::1", true),
        ("2001:db8::1", false), ("2001:db8:ffff::1", false), ("2001:db9::1", true),
        ("2002:c0a8:0101::1", false), ("2002:7f00:0001::1", false), ("2002:0808:0808::1", true),
        ("3fff::1", false), ("3fff:fff::1", false), ("3fff:1000::1", true),
        ("fc00::1", false), ("fd00:ec2::254", false), ("fdff:ffff::1", false),
        ("fe80::1", false), ("febf::1", false), ("fec0::1", false),
        ("ff02::1", false), ("ff0e::1", false),
        ("1fff:ffff::1", false), ("4000::1", false),
    ]

    @Test(arguments: rows.indices)
    func judges(_ index: Int) throws {
        let row = Self.rows[index]
        let address = try #require(Self.peer(row.address), "\(row.address) does not parse")
        #expect(AddressPolicy.isPublic(address) == row.isPublic, "\(row.address)")
        #expect(AddressPolicy(allowsPrivate: false).admits(address) == row.isPublic, "\(row.address)")
        #expect(AddressPolicy(allowsPrivate: true).admits(address), "\(row.address)")
    }

    static func peer(_ text: String) -> PeerAddress? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return PeerAddress(family: .ipv4, octets: withUnsafeBytes(of: v4) { Array($0) }, port: 443)
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return PeerAddress(family: .ipv6, octets: withUnsafeBytes(of: v6) { Array($0) }, port: 443)
        }
        return nil
    }
}

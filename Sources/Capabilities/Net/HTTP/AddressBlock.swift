/// A CIDR block (`10.0.0.0/8`, `fc00::/7`): the first `bits` bits of an
/// address in network order.
struct AddressBlock: Sendable {
    let prefix: [UInt8]
    let bits: Int

    init(_ prefix: [UInt8], _ bits: Int) {
        self.prefix = prefix
        self.bits = bits
    }

    /// Whether the address's leading `bits` match; prefix bytes not
    /// written out are zeros.
    func contains(_ octets: some Collection<UInt8>) -> Bool {
        var remaining = bits
        for (index, byte) in octets.enumerated() where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            let prefixByte = index < prefix.count ? prefix[index] : 0
            guard byte & mask == prefixByte & mask else { return false }
            remaining -= 8
        }
        return remaining <= 0
    }
}

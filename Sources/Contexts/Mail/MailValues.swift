import Domain
import FoundationEssentials
import MailClient

/// A mail's values as one JSON object, member by member: documents the
/// domain writes already (an order as the API shows it) go in as they are,
/// the rest through `JSONEncoder`.
struct MailValues {
    private var members: [(String, [UInt8])] = []

    /// Every mail's values start with the shop (`shop.name`, `shop.url`).
    init(site: MailSite) throws {
        try add("shop", ["name": site.shopName, "url": site.publicURL])
    }

    mutating func add(_ name: String, json: [UInt8]) {
        members.append((name, json))
    }

    mutating func add(_ name: String, _ value: some Encodable) throws {
        members.append((name, Array(try JSONEncoder().encode(value))))
    }

    /// `{"name": value, …}` in the order added.
    var json: [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, (name, value)) in members.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += Array("\"\(name)\":".utf8)
            bytes += value
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}

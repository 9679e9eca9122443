/// A mailbox: an address and the name shown with it.
public struct MailAddress: Sendable, Equatable {
    /// `local@domain`; either part may be non-ASCII (then the message
    /// needs a server offering SMTPUTF8, RFC 6531).
    public var address: String
    public var name: String?

    public init(_ address: String, name: String? = nil) {
        self.address = address
        self.name = name
    }

    var isASCII: Bool { address.utf8.allSatisfy { $0 < 0x80 } }

    /// True for `local@domain` with neither part empty and nothing that
    /// would break out of `<…>` on the wire or in a header.
    var isWellFormed: Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        return address.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }
    }
}

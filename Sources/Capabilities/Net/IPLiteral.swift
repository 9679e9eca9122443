import Glibc

enum IPLiteral {
    /// True for a dotted IPv4 or a textual IPv6 address (no brackets).
    static func isIPAddress(_ text: String) -> Bool {
        var storage = in6_addr()
        return inet_pton(AF_INET, text, &storage) == 1 || inet_pton(AF_INET6, text, &storage) == 1
    }
}

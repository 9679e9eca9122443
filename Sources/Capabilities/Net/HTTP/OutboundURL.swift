import Glibc

/// An absolute `http` or `https` URL (RFC 3986, RFC 9110 4.2) an outbound
/// request can be sent to, split into what the client needs: where to
/// connect and what to ask for. Parsing is strict so that what is stored
/// for an endpoint is what is reached: no user info (a classic way to
/// disguise a host), no fragment (never sent), ASCII only (a name in
/// Unicode must come as its A-label), at most 2048 bytes.
public struct OutboundURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable {
        case https, http

        var defaultPort: UInt16 { self == .https ? 443 : 80 }
    }

    public static let maxBytes = 2048

    public let scheme: Scheme
    /// Lower-cased; an IPv6 literal without its brackets.
    public let host: String
    /// The URL's port, else the scheme's default (443, 80).
    public let port: UInt16
    /// Path and query, "/" when the URL has neither.
    public let target: String

    public init(parsing text: String) throws(OutboundURLError) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maxBytes else { throw Self.refused("a URL longer than \(Self.maxBytes) bytes is refused") }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Self.refused("a URL may hold only visible ASCII (percent-encode the rest)")
        }
        guard let schemeEnd = text.firstRange(of: "://") else { throw Self.refused("the URL must be absolute (https://host/path)") }
        guard let scheme = Scheme(rawValue: text[..<schemeEnd.lowerBound].lowercased()) else {
            throw Self.refused("the scheme must be https or http")
        }
        guard !text.contains("#") else { throw Self.refused("a URL with a fragment is refused") }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else { throw Self.refused("a URL with user info is refused") }
        let (host, port) = try Self.hostAndPort(authority, scheme: scheme)
        let target = rest[authorityEnd...]
        try Self.checkTarget(target)
        self.scheme = scheme
        self.host = host
        self.port = port
        self.target = target.isEmpty ? "/" : target.first == "?" ? "/" + target : String(target)
    }

    /// `host[:port]` as a Host field and a URL carry it: an IPv6 literal
    /// in brackets, the port only when it is not the scheme's default.
    public var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == scheme.defaultPort ? name : "\(name):\(port)"
    }

    public var description: String { "\(scheme.rawValue)://\(authority)\(target)" }

    // MARK: Parts

    private static func hostAndPort(_ authority: Substring, scheme: Scheme) throws(OutboundURLError) -> (String, UInt16) {
        let host: String
        var rest: Substring
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw refused("an IPv6 address must end with ']'") }
            host = authority[authority.index(after: authority.startIndex)..<close].lowercased()
            var address = in6_addr()
            guard inet_pton(AF_INET6, host, &address) == 1 else { throw refused("'\(host)' is not an IPv6 address") }
            rest = authority[authority.index(after: close)...]
        } else {
            let colon = authority.firstIndex(of: ":") ?? authority.endIndex
            host = authority[..<colon].lowercased()
            try checkName(host)
            rest = authority[colon...]
        }
        guard let colon = rest.first else { return (host, scheme.defaultPort) }
        rest = rest.dropFirst()
        guard colon == ":", !rest.isEmpty, rest.count <= 5, rest.allSatisfy(\.isASCIIDigit),
              let port = Int(rest), (1...65535).contains(port)
        else { throw refused("the port must be a number from 1 to 65535") }
        return (host, UInt16(port))
    }

    /// A DNS name (letters, digits, '-' and '_' in labels of 1 to 63 bytes,
    /// at most 253 bytes) or a dotted IPv4 address. A name of digits and
    /// dots alone must be a whole dotted quad: `127.1` and friends, which
    /// the resolver would read as addresses, are refused as ambiguous.
    private static func checkName(_ host: String) throws(OutboundURLError) {
        guard !host.isEmpty else { throw refused("the URL has no host") }
        if host.allSatisfy({ $0.isASCIIDigit || $0 == "." }) {
            var address = in_addr()
            guard inet_pton(AF_INET, host, &address) == 1 else { throw refused("'\(host)' is not an IPv4 address") }
            return
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard host.utf8.count <= 253,
              labels.allSatisfy({ label in
                  (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                      && label.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "-" || $0 == "_" }
              })
        else { throw refused("'\(host)' is not a valid host name") }
    }

    /// path-abempty [ "?" query ]: the visible ASCII already checked, and
    /// every '%' starting a two-digit hexadecimal escape.
    private static func checkTarget(_ target: Substring) throws(OutboundURLError) {
        let bytes = Array(target.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else {
                    throw refused("a '%' in the path or query must start an escape like %2F")
                }
                index += 3
            } else {
                index += 1
            }
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func refused(_ reason: String) -> OutboundURLError { OutboundURLError(reason: reason) }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

import Testing
@testable import Capabilities

/// What an endpoint's URL may be, and how it is normalized.
@Suite struct OutboundURLTests {
    struct Accepted: Sendable, CustomTestStringConvertible {
        let text: String
        let scheme: OutboundURL.Scheme
        let host: String
        let port: UInt16
        let target: String
        let normalized: String

        var testDescription: String { text }
    }

    static let accepted: [Accepted] = [
        Accepted(text: "https://example.com", scheme: .https, host: "example.com", port: 443, target: "/",
                 normalized: "https://example.com/"),
        Accepted(text: "HTTPS://Hooks.Example.COM:8443/a/b?c=d&e", scheme: .https, host: "hooks.example.com", port: 8443,
                 target: "/a/b?c=d&e", normalized: "https://hooks.example.com:8443/a/b?c=d&e"),
        Accepted(text: "http://example.com:80/x", scheme: .http, host: "example.com", port: 80, target: "/x",
                 normalized: "http://example.com/x"),
        Accepted(text: "http://example.com:443/x", scheme: .http, host: "example.com", port: 443, target: "/x",
                 normalized: "http://example.com:443/x"),
        Accepted(text: "https://[2001:DB8::1]:9000/hook", scheme: .https, host: "2001:db8::1", port: 9000, target: "/hook",
                 normalized: "https://[2001:db8::1]:9000/hook"),
        Accepted(text: "https://192.0.2.7/in", scheme: .https, host: "192.0.2.7", port: 443, target: "/in",
                 normalized: "https://192.0.2.7/in"),
        Accepted(text: "https://example.com?x=1", scheme: .https, host: "example.com", port: 443, target: "/?x=1",
                 normalized: "https://example.com/?x=1"),
        Accepted(text: "https://my_host-1.example/p%2Fq", scheme: .https, host: "my_host-1.example", port: 443,
                 target: "/p%2Fq", normalized: "https://my_host-1.example/p%2Fq"),
    ]

    @Test(arguments: accepted)
    func parses(_ row: Accepted) throws {
        let url = try OutboundURL(parsing: row.text)
        #expect(url.scheme == row.scheme)
        #expect(url.host == row.host)
        #expect(url.port == row.port)
        #expect(url.target == row.target)
        #expect(url.description == row.normalized)
        // The normalized text parses to the same URL.
        #expect(try OutboundURL(parsing: url.description) == url)
    }

    static let refused: [(text: String, reason: String)] = [
        ("ftp://example.com/", "the scheme must be https or http"),
        ("example.com/hook", "the URL must be absolute (https://host/path)"),
        ("https://user:secret@example.com/", "a URL with user info is refused"),
        ("https://example.com@169.254.169.254/", "a URL with user info is refused"),
        ("https://example.com/#part", "a URL with a fragment is refused"),
        ("https://exa mple.com/", "a URL may hold only visible ASCII (percent-encode the rest)"),
        ("https://ex\u{e4}mple.com/", "a URL may hold only visible ASCII (percent-encode the rest)"),
        ("https://example.com:0/", "the port must be a number from 1 to 65535"),
        ("https://example.com:65536/", "the port must be a number from 1 to 65535"),
        ("https://example.com:/", "the port must be a number from 1 to 65535"),
        ("https://example.com:80a/", "the port must be a number from 1 to 65535"),
        ("https:///path", "the URL has no host"),
        ("https://[::1/", "an IPv6 address must end with ']'"),
        ("https://[fe80::1%25eth0]/", "'fe80::1%25eth0' is not an IPv6 address"),
        ("https://[::1]x/", "the port must be a number from 1 to 65535"),
        ("https://127.1/", "'127.1' is not an IPv4 address"),
        ("https://-bad.example/", "'-bad.example' is not a valid host name"),
        ("https://a..b/", "'a..b' is not a valid host name"),
        ("https://example.com./", "'example.com.' is not a valid host name"),
        ("https://ex%41mple.com/", "'ex%41mple.com' is not a valid host name"),
        ("https://example.com/%zz", "a '%' in the path or query must start an escape like %2F"),
        ("https://example.com/%4", "a '%' in the path or query must start an escape like %2F"),
        ("https://example.com/" + String(repeating: "a", count: 2029), "a URL longer than 2048 bytes is refused"),
    ]

    @Test(arguments: refused.indices)
    func refuses(_ index: Int) {
        let row = Self.refused[index]
        #expect(throws: OutboundURLError(reason: row.reason), "\(row.text)") { try OutboundURL(parsing: row.text) }
    }

    @Test func theLongestURLIsAccepted() throws {
        let text = "https://example.com/" + String(repeating: "a", count: 2028)
        #expect(text.utf8.count == OutboundURL.maxBytes)
        #expect(try OutboundURL(parsing: text).description == text)
    }
}

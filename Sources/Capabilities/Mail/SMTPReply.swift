/// One SMTP reply (RFC 5321 section 4.2): a three-digit code and its
/// lines of text, the lines of a multi-line reply joined.
struct SMTPReply: Sendable, Equatable {
    let code: Int
    let lines: [String]

    var text: String { lines.joined(separator: " / ") }
    var isPositive: Bool { (200..<300).contains(code) }
    var isIntermediate: Bool { (300..<400).contains(code) }
    var isTransient: Bool { (400..<500).contains(code) }
    /// 421: the server is closing the connection.
    var closesConnection: Bool { code == 421 }
}

/// What a server's EHLO reply offers (RFC 5321 4.1.1.1): the service
/// extensions this client uses, from the lines after the greeting one.
struct SMTPExtensions: Sendable, Equatable {
    var pipelining = false
    var startTLS = false
    var eightBitMIME = false
    var smtpUTF8 = false
    /// SIZE's limit in octets; 0 when offered without one (RFC 1870).
    var sizeLimit: Int?
    /// AUTH's mechanisms, upper-cased.
    var authMechanisms: Set<String> = []

    init(ehlo reply: SMTPReply) {
        for line in reply.lines.dropFirst() {
            let words = line.split(separator: " ")
            guard let keyword = words.first?.uppercased() else { continue }
            switch keyword {
            case "PIPELINING": pipelining = true
            case "STARTTLS": startTLS = true
            case "8BITMIME": eightBitMIME = true
            case "SMTPUTF8": smtpUTF8 = true
            case "SIZE": sizeLimit = words.count > 1 ? Int(words[1]) ?? 0 : 0
            case "AUTH": authMechanisms.formUnion(words.dropFirst().map { $0.uppercased() })
            default: break
            }
        }
    }
}

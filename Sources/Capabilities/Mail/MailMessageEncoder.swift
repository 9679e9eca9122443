/// Writes a `MailMessage` as RFC 5322 text with MIME (RFC 2045–2047):
/// header text folded and encoded by `HeaderText`, each part UTF-8 in
/// quoted-printable, CRLF line ends and no line over 998 octets.
enum MailMessageEncoder {
    /// `=_` cannot occur in quoted-printable output (`=` is always
    /// followed by two hex digits or a line break), so a fixed boundary
    /// never collides with a part and the same message encodes the same.
    static let boundary = "=_axiom_alternative"

    static func encode(_ message: MailMessage) throws(MailMessageError) -> EncodedMail {
        guard !message.to.isEmpty else { throw .noRecipient }
        for mailbox in [message.from] + message.to + (message.replyTo.map { [$0] } ?? []) where !mailbox.isWellFormed {
            throw .invalidAddress(mailbox.address)
        }
        let messageID = try normalizedMessageID(message.messageID)
        var head = ""
        head += HeaderText.field("Date", [MailDate.format(message.date)])
        head += HeaderText.field("From", mailboxTokens([message.from]))
        head += HeaderText.field("To", mailboxTokens(message.to))
        if let replyTo = message.replyTo { head += HeaderText.field("Reply-To", mailboxTokens([replyTo])) }
        head += HeaderText.field("Subject", HeaderText.unstructured(message.subject))
        head += HeaderText.field("Message-ID", [messageID])
        head += "MIME-Version: 1.0\r\n"
        var bytes = Array(head.utf8)
        if let html = message.html {
            bytes += Array(HeaderText.field("Content-Type", ["multipart/alternative;", "boundary=\"\(boundary)\""]).utf8)
            bytes += Array("\r\n--\(boundary)\r\n".utf8)
            // A part's last CRLF is the delimiter's own (RFC 2046 5.1.1),
            // so each part decodes to exactly the caller's text.
            bytes += part(type: "text/plain", message.text)
            bytes += Array("--\(boundary)\r\n".utf8)
            bytes += part(type: "text/html", html)
            bytes += Array("--\(boundary)--\r\n".utf8)
        } else {
            bytes += part(type: "text/plain", message.text)
        }
        let allMailboxes = [message.from] + message.to + (message.replyTo.map { [$0] } ?? [])
        return EncodedMail(bytes: bytes, sender: message.from.address, recipients: message.to.map(\.address),
                           needsSMTPUTF8: !allMailboxes.allSatisfy(\.isASCII),
                           hasEightBitOctets: bytes.contains { $0 >= 0x80 }, messageID: messageID)
    }

    /// A part's own header fields, a blank line, its quoted-printable body.
    private static func part(type: String, _ text: String) -> [UInt8] {
        Array("Content-Type: \(type); charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n".utf8)
            + QuotedPrintable.encode(text)
    }

    /// `"Name" <address>, …` as tokens `HeaderText.field` folds between.
    private static func mailboxTokens(_ mailboxes: [MailAddress]) -> [String] {
        var tokens: [String] = []
        for (index, mailbox) in mailboxes.enumerated() {
            if let name = mailbox.name, !name.isEmpty { tokens += HeaderText.phrase(name) }
            tokens.append("<\(mailbox.address)>" + (index < mailboxes.count - 1 ? "," : ""))
        }
        return tokens
    }

    /// `<left@right>`, brackets added when the caller left them out.
    private static func normalizedMessageID(_ id: String) throws(MailMessageError) -> String {
        var core = Substring(id)
        if core.hasPrefix("<"), core.hasSuffix(">") { core = core.dropFirst().dropLast() }
        let parts = core.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, core.utf8.count <= 900,
              core.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") })
        else { throw .invalidMessageID(id) }
        return "<\(core)>"
    }
}

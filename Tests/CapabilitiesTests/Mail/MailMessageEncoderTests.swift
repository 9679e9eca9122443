import AxiomTestSupport
import Foundation
import Testing
import TestSupport
@testable import Capabilities

/// The RFC 5322 text itself, read back by Python's email package: folding,
/// encoded-words, quoted-printable limits, dot-stuffing, refused input.
@Suite struct MailMessageEncoderTests {
    static func message(subject: String = "Hello", name: String? = "Ann", text: String = "Hi",
                        html: String? = "<p>Hi</p>", messageID: String = "job-7@shop.example") -> MailMessage {
        MailMessage(from: MailAddress("shop@example.com", name: "The \"Best\" Shop \\ Co"),
                    to: [MailAddress("ann@example.org", name: name), MailAddress("bob@example.org")],
                    subject: subject, text: text, html: html, messageID: messageID, date: 0)
    }

    /// Writes the encoded message to a file and parses it with `mail_parse.py`.
    static func parsed(_ message: MailMessage) throws -> (raw: String, mail: [String: Any]) {
        let encoded = try MailMessageEncoder.encode(message)
        let directory = try TempDirectory(prefix: "axiom-mail")
        let path = directory.path("message.eml")
        try Data(encoded.bytes).write(to: URL(fileURLWithPath: path))
        let accepted = SMTPSink.Accepted(envelope: [:], rawPath: path)
        return (String(decoding: encoded.bytes, as: UTF8.self), try accepted.parsed())
    }

    @Test func longHeadersAreFoldedAndDecodeToTheirText() throws {
        let subject = "Your order 1234 has shipped and will arrive on Thursday between nine and twelve o'clock, "
            + "tracking number ZX-99"
        let name = "Ünïcødé Ñame with quite a few words that will need more than one encoded word to carry it"
        let (raw, mail) = try Self.parsed(Self.message(subject: subject, name: name))
        #expect(mail["defects"] as? [String] == [])
        #expect(mail["subject"] as? String == subject)
        #expect(mail["to"] as? [[String: String]] == [["name": name, "address": "ann@example.org"],
                                                      ["name": "", "address": "bob@example.org"]])
        #expect(mail["from"] as? [[String: String]] == [["name": "The \"Best\" Shop \\ Co", "address": "shop@example.com"]])
        #expect(mail["message_id"] as? String == "<job-7@shop.example>")
        #expect(mail["date"] as? String == "1970-01-01T00:00:00+00:00")
        #expect(raw.contains("Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n"))
        #expect((mail["longest_line"] as? Int ?? 999) <= 78)
        #expect(raw.contains("Subject: Your order"))
        #expect(raw.contains("=?UTF-8?B?"))
    }

    @Test func lineBreaksInHeaderTextCannotStartAField() throws {
        let (raw, mail) = try Self.parsed(Self.message(subject: "Hi\r\nBcc: victim@example.net", name: "Ann\nX-Evil: 1"))
        #expect(mail["subject"] as? String == "Hi Bcc: victim@example.net")
        #expect(!raw.contains("\r\nBcc:"))
        #expect(!raw.contains("\r\nX-Evil:"))
    }

    @Test func bodiesKeepTheirTextWithinLineLimits() throws {
        let text = String(repeating: "x", count: 3000) + "\n.\n..leading dots\nend with spaces   \n\ttab\r\nünïcödé ="
        let (_, mail) = try Self.parsed(Self.message(text: text, html: nil))
        #expect(mail["content_type"] as? String == "text/plain")
        let parts = try #require(mail["parts"] as? [[String: Any]])
        #expect(parts.count == 1)
        // A lone part's last line ends like every other (in a multipart
        // message that line end is the delimiter's).
        #expect(parts.first?["text"] as? String == text.replacingOccurrences(of: "\r\n", with: "\n") + "\n")
        #expect((mail["longest_line"] as? Int ?? 999) <= 78)
        #expect(mail["bare_lf"] as? Int == 0)
    }

    @Test func dotStuffingDoublesLeadingDotsAndEndsTheData() {
        let stuffed = SMTPSession.dotStuffed(Array(".one\r\ntwo\r\n..three\r\n".utf8))
        #expect(String(decoding: stuffed, as: UTF8.self) == "..one\r\ntwo\r\n...three\r\n.\r\n")
        #expect(String(decoding: SMTPSession.dotStuffed(Array("no end".utf8)), as: UTF8.self) == "no end\r\n.\r\n")
    }

    @Test func whatCannotBeSentIsRefusedBeforeAnyConnection() {
        #expect(throws: MailMessageError.invalidAddress("ann@example.org>\r\nRCPT TO:<x@y")) {
            try MailMessageEncoder.encode(MailMessage(
                from: MailAddress("shop@example.com"), to: [MailAddress("ann@example.org>\r\nRCPT TO:<x@y")],
                subject: "s", text: "t", messageID: "a@b", date: 0))
        }
        #expect(throws: MailMessageError.invalidAddress("no-at-sign")) {
            try MailMessageEncoder.encode(MailMessage(from: MailAddress("no-at-sign"), to: [MailAddress("a@b.c")],
                                                      subject: "s", text: "t", messageID: "a@b", date: 0))
        }
        #expect(throws: MailMessageError.noRecipient) {
            try MailMessageEncoder.encode(MailMessage(from: MailAddress("a@b.c"), to: [], subject: "s", text: "t",
                                                      messageID: "a@b", date: 0))
        }
        #expect(throws: MailMessageError.invalidMessageID("<no at sign>")) {
            try MailMessageEncoder.encode(Self.message(messageID: "<no at sign>"))
        }
        #expect(MailMessageError.noRecipient.reason == "no recipient")
    }

    @Test func anASCIIMessageNeedsNeitherSMTPUTF8Nor8BitMIME() throws {
        let encoded = try MailMessageEncoder.encode(Self.message(subject: "Grüße", name: "Zoë", text: "€"))
        #expect(!encoded.needsSMTPUTF8)
        #expect(!encoded.hasEightBitOctets)
        let international = try MailMessageEncoder.encode(MailMessage(
            from: MailAddress("shop@example.com"), to: [MailAddress("zoë@example.org")], subject: "s", text: "t",
            messageID: "a@b", date: 0))
        #expect(international.needsSMTPUTF8)
        #expect(international.hasEightBitOctets)
    }
}

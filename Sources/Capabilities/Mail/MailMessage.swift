/// One e-mail as RFC 5322 says (`MailMessageEncoder` writes it): who it is
/// from and to, its subject, and its text with an optional HTML
/// alternative. The sender and reply-to address are the message's own, so
/// one transport sends for any of them.
public struct MailMessage: Sendable, Equatable {
    public var from: MailAddress
    public var to: [MailAddress]
    public var replyTo: MailAddress?
    public var subject: String
    /// The text/plain part.
    public var text: String
    /// The text/html part; with it the message is multipart/alternative.
    public var html: String?
    /// `<left@right>` (the brackets may be left out): stable per piece of
    /// work, so a message sent again after a lost reply is recognisable.
    public var messageID: String
    /// Seconds since 1970 (UTC) for the Date field.
    public var date: Int64

    public init(from: MailAddress, to: [MailAddress], replyTo: MailAddress? = nil, subject: String, text: String,
                html: String? = nil, messageID: String, date: Int64) {
        self.from = from
        self.to = to
        self.replyTo = replyTo
        self.subject = subject
        self.text = text
        self.html = html
        self.messageID = messageID
        self.date = date
    }
}

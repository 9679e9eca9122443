import Capabilities

/// Who the shop's mails come from: the `From` and `Reply-To` of every
/// message, and the domain its `Message-ID`s are made in.
public struct MailSender: Sendable, Equatable {
    public let from: MailAddress
    public let replyTo: MailAddress?

    public init(from: MailAddress, replyTo: MailAddress? = nil) {
        self.from = from
        self.replyTo = replyTo
    }

    /// The part after the sender address's `@`: a `Message-ID` is unique
    /// in the sender's domain (RFC 5322 3.6.4).
    public var messageIDDomain: String {
        from.address.split(separator: "@").last.map(String.init) ?? "localhost"
    }
}

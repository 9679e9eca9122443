import Domain

/// A 5xx reply to the message's own transaction (MAIL FROM, RCPT TO,
/// DATA): the server will not take this message, so it is not retried.
public struct MailRejected: PermanentFailure, Equatable, CustomStringConvertible {
    /// The command refused (`RCPT TO:<a@b.c>`, `DATA`).
    public let step: String
    public let code: Int
    public let text: String

    public var reason: String { description }
    public var description: String { "SMTP \(step) rejected: \(code) \(text)" }
}

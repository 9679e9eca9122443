/// A send that failed for a reason a later attempt may not meet: the
/// network, TLS, a timeout, a 4xx reply, or a server that refuses this
/// transport's settings (its EHLO, STARTTLS or AUTH step). A job retries
/// these with back-off; `MailRejected` is the final kind.
public enum MailTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Connecting, TLS (a refused certificate too), reading or writing.
    case connection(NetError)
    /// A 4xx reply: the server asks to try again later.
    case deferred(step: String, code: Int, text: String)
    /// A refusal of the session rather than of the message (greeting,
    /// EHLO, STARTTLS, AUTH: a wrong password is one): the settings need a
    /// fix, after which the same message goes through.
    case sessionRefused(step: String, code: Int, text: String)
    /// The server lacks what the settings require (STARTTLS, an AUTH mechanism).
    case unsupported(String)
    /// The server's replies break the protocol.
    case protocolViolation(String)

    public var description: String {
        switch self {
        case .connection(let error): "SMTP connection: \(error)"
        case .deferred(let step, let code, let text): "SMTP \(step) deferred: \(code) \(text)"
        case .sessionRefused(let step, let code, let text): "SMTP \(step) refused: \(code) \(text)"
        case .unsupported(let what): "SMTP server: \(what)"
        case .protocolViolation(let what): "SMTP protocol violation: \(what)"
        }
    }
}

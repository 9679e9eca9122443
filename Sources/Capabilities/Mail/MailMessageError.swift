import Domain

/// A message that cannot be sent as it is, whatever the server: sending it
/// again would fail the same way.
public enum MailMessageError: PermanentFailure, Equatable, CustomStringConvertible {
    case invalidAddress(String)
    case noRecipient
    case invalidMessageID(String)
    /// A non-ASCII address, and the server does not offer SMTPUTF8.
    case needsSMTPUTF8
    /// Larger than the server's SIZE limit.
    case tooLarge(bytes: Int, limit: Int)

    public var reason: String { description }

    public var description: String {
        switch self {
        case .invalidAddress(let address): "invalid address \"\(address)\""
        case .noRecipient: "no recipient"
        case .invalidMessageID(let id): "invalid Message-ID \"\(id)\""
        case .needsSMTPUTF8: "a non-ASCII address, and the server does not offer SMTPUTF8"
        case .tooLarge(let bytes, let limit): "the message has \(bytes) bytes, the server takes at most \(limit)"
        }
    }
}

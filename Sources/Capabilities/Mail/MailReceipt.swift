/// The server's acceptance of a message: its final reply after DATA,
/// which usually names its queue id (`250 2.0.0 Ok: queued as 4F2A1`).
public struct MailReceipt: Sendable, Equatable {
    public let messageID: String
    public let code: Int
    public let text: String
}

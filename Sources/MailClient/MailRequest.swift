/// One mail to send: which templates, to whom, with what values, under
/// which `Message-ID` (stable for the job that sends it, so a retried send
/// is recognisable as the same message).
public struct MailRequest: Sendable, Hashable {
    /// A template set's name, e.g. `order/placed`.
    public let template: String
    public let to: String
    public let toName: String?
    /// A JSON object: what the templates are rendered with.
    public let values: [UInt8]
    /// The left part, stable per job (`job-42.order-mail`); the sender's
    /// domain is added as its right part.
    public let messageID: String

    public init(template: String, to: String, toName: String? = nil, values: [UInt8], messageID: String) {
        self.template = template
        self.to = to
        self.toName = toName
        self.values = values
        self.messageID = messageID
    }
}

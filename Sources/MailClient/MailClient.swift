import Axiom
import Capabilities
import Domain

/// The shop's mail: a template set rendered with a mail's values and sent
/// through the SMTP capability. No state: each `send` renders and hands
/// the message to the transport, which keeps its connection for the next.
/// Without a transport (no `smtp_host` setting) mail is off: `isEnabled`
/// says so, and the clients that would enqueue mails are told to enqueue
/// none.
///
/// A send's failure is the transport's: a 5xx reply (`MailRejected`), a
/// message that cannot be encoded or a missing template are final for
/// the job (`PermanentFailure`); a 4xx, a connection or TLS failure and a
/// timeout are tried again later.
public actor MailClient: StatelessClient {
    private let transport: CapabilityHandle<MailTransport>?
    private let templates: MailTemplates
    private let sender: MailSender
    private let clock: any TimeSource
    /// The shop as its mails show it (name, links, the admins' address).
    public nonisolated let site: MailSite

    public init(transport: CapabilityHandle<MailTransport>?, templates: MailTemplates, sender: MailSender,
                site: MailSite, clock: any TimeSource) {
        self.transport = transport
        self.templates = templates
        self.sender = sender
        self.site = site
        self.clock = clock
    }

    public func activate() async throws {}

    public func deactivate() async {}

    public nonisolated var isEnabled: Bool { transport != nil }

    /// The mail `request` names, as it would be sent (what tests and the
    /// admin preview read).
    public nonisolated func render(_ request: MailRequest) throws -> RenderedMail {
        guard let values = TemplateValue(json: request.values) else {
            throw MailTemplateError(template: request.template, detail: "the mail's values are not a JSON document")
        }
        return try templates.render(request.template, values.withMoneyText())
    }

    /// Renders and sends one mail; answers the server's acceptance.
    public nonisolated func send(_ request: MailRequest) async throws -> MailReceipt {
        guard let transport else { throw MailOff() }
        let mail = try render(request)
        let message = MailMessage(from: sender.from, to: [MailAddress(request.to, name: request.toName)],
                                  replyTo: sender.replyTo, subject: mail.subject, text: mail.text, html: mail.html,
                                  messageID: "\(request.messageID)@\(sender.messageIDDomain)", date: clock.millisecondsSince1970() / 1000)
        return try await transport.current.send(message)
    }
}

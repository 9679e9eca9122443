/// A mail's three templates: the subject line, the plain text part and the
/// HTML part (`<name>.subject`, `<name>.txt`, `<name>.html`).
struct MailTemplateSet: Sendable {
    let subject: MailTemplate
    let text: MailTemplate
    let html: MailTemplate

    /// The rendered parts; the subject on one line (line breaks a template
    /// or a value put in it become spaces).
    func render(_ values: TemplateValue) -> RenderedMail {
        let subject = subject.render(values, escaping: .none)
            .split(whereSeparator: \.isNewline).map { $0.trimmingSpaces }.joined(separator: " ")
        return RenderedMail(subject: subject, text: text.render(values, escaping: .none),
                            html: html.render(values, escaping: .html))
    }
}

/// What a template set made of one mail's values.
public struct RenderedMail: Sendable, Hashable {
    public let subject: String
    public let text: String
    public let html: String
}

/// A flow that only a mail can finish (a password reset) was asked for
/// while mail is off (409: the shop's state stands in the way; the same
/// for every address, so it tells nothing about accounts).
public struct MailNotConfigured: Refusal, Hashable {
    public init() {}

    public var code: String { "mail_not_configured" }
    public var category: RefusalCategory { .conflict }
    public var message: String { "This shop sends no mail, so a password cannot be reset by mail; ask the shop." }
}

import Axiom
import Domain
import MailClient
import UserClient

/// The account mails (`account.mail` jobs, queued by the users client in
/// the commit of the change they tell of): a reset link, the notice that
/// the password was reset, a verification link, the old address told of a
/// change, the owner of an address told that someone tried to register
/// with it. The user is read when the mail goes; a deleted account is
/// sent nothing. A link is `public_url` with the shop front's page and the
/// token (`/reset-password?token=…`, `/verify-email?token=…`), whose page
/// posts it to `POST /password-resets/complete` or `POST
/// /email-verifications`. The `Message-ID` is the job's.
public struct AccountMails: JobWork {
    public static let kinds = [AccountMail.kind]

    private let users: ClientHandle<UserClient>
    private let mail: ClientHandle<MailClient>

    public init(_ creation: ContextCreation) throws {
        users = try creation.client(UserClient.self)
        mail = try creation.client(MailClient.self)
    }

    public func run(_ job: Job) async throws {
        let notice = try JobPayload.decode(job) { try AccountMail(payload: $0.payload) }
        let user = try await users.call { try await $0.user(notice.userID) }
        guard !user.isDeleted else { return }
        let site = mail.call { $0.site }
        var values = try MailValues(site: site)
        try values.add("name", user.name)
        try values.add("email", user.email.address)
        if let token = notice.token {
            let page = notice.mail == .passwordReset ? "/reset-password" : "/verify-email"
            try values.add("link", site.link("\(page)?token=\(token)"))
        }
        if let address = notice.address { try values.add("address", address) }
        try values.add("minutes", Self.linkMinutes(notice.mail, users.call { $0.accounts }))
        let request = MailRequest(template: notice.mail.templateName, to: notice.address ?? user.email.address,
                                  toName: user.name, values: values.json, messageID: job.mailMessageID)
        _ = try await mail.call { try await $0.send(request) }
    }

    /// How long the mail's link works, in minutes, for its text.
    static func linkMinutes(_ mail: AccountMail.Template, _ settings: AccountSettings) -> Int64 {
        switch mail {
        case .passwordReset: settings.resetTokenLifetimeSeconds / 60
        case .verifyEmail: settings.verificationTokenLifetimeSeconds / 60
        default: 0
        }
    }
}

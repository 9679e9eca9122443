import Capabilities
import MailClient

/// The mail settings (`smtp_…`, `mail_…`, `public_url`): without
/// `smtp_host` mail is off, and nothing is enqueued that nothing would send.
struct MailOptions: Sendable {
    var smtpHost: String?
    var smtpPort = 587
    /// `starttls`, `implicit` (TLS from the first byte, usually port 465) or `none`.
    var smtpTLS = "starttls"
    var smtpUsername: String?
    var smtpPassword: String?
    var smtpCAFile: String?
    var smtpTimeoutSeconds = 30.0
    var smtpConnections = 4
    var from: String?
    var fromName = "Axiom Shop"
    var replyTo: String?
    var adminTo: String?
    var templates = "config/mail"
    var templatesOverride: String?
    var publicURL = "http://127.0.0.1:8080"

    var isOn: Bool { smtpHost != nil }

    /// The transport's settings, when mail is on.
    var transport: MailTransportSettings? {
        guard let smtpHost else { return nil }
        let timeout = Duration.milliseconds(Int(smtpTimeoutSeconds * 1000))
        return MailTransportSettings(host: smtpHost, port: UInt16(smtpPort),
                                     security: MailTransportSettings.Security(rawValue: smtpTLS) ?? .starttls,
                                     username: smtpUsername, password: smtpPassword, caFile: smtpCAFile,
                                     ehloName: MailSender(from: MailAddress(from ?? "localhost")).messageIDDomain,
                                     connectTimeout: timeout, commandTimeout: timeout, maxConnections: smtpConnections)
    }

    var sender: MailSender {
        MailSender(from: MailAddress(from ?? "mail@localhost", name: fromName), replyTo: replyTo.map { MailAddress($0) })
    }

    /// The admins' notices go to `mail_admin_to`, else to `admin_email`.
    func site(adminEmail: String?) -> MailSite {
        MailSite(shopName: fromName, publicURL: publicURL, adminAddress: adminTo ?? adminEmail)
    }
}

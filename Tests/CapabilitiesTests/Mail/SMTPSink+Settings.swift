@testable import Capabilities
import TestSupport

extension SMTPSink {
    /// Transport settings for this server; `security` must match its `--tls`.
    func settings(_ security: MailTransportSettings.Security, username: String? = nil, password: String? = nil,
                  trustingItsCA: Bool = true) -> MailTransportSettings {
        MailTransportSettings(host: "localhost", port: port, security: security, username: username, password: password,
                              caFile: trustingItsCA ? caFile : nil, ehloName: "client.test",
                              connectTimeout: .seconds(10), commandTimeout: .seconds(10))
    }
}

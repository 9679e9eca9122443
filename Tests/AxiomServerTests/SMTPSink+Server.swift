import Foundation
import TestSupport

/// The server's side of a test SMTP server: the settings that send through
/// it, and its messages as the account flows read them.
extension SMTPSink {
    /// One accepted message as Python's email package parsed it.
    struct Mail {
        let to: [String]
        let subject: String
        let messageID: String
        let text: String
        let html: String
    }

    /// Mail settings that send through this server, which must run with the
    /// same `tls` (and `--auth` when `auth`), with links under `publicURL`.
    func serverArguments(tls: String = "none", auth: Bool = false, publicURL: String = "http://shop.test",
                         fromName: String = "Axiom Shop") -> [String] {
        let templates = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/mail").path
        return ["--smtp-host", tls == "none" ? "127.0.0.1" : "localhost", "--smtp-port", String(port),
                "--smtp-tls", tls, "--mail-from", "shop@example.com", "--mail-from-name", fromName,
                "--public-url", publicURL, "--mail-templates", templates, "--jobs-poll-interval", "0.05"]
            + (tls == "none" ? [] : ["--smtp-ca-file", caFile])
            + (auth ? ["--smtp-username", Self.user, "--smtp-password", Self.password] : [])
    }

    /// The settings of a server started with `--tls none`.
    var serverArguments: [String] { serverArguments() }

    /// The messages once at least `count` were accepted, parsed.
    func mails(_ count: Int) throws -> [Mail] {
        try waitForMessages(count).map { accepted in
            let parsed = try accepted.parsed()
            let parts = parsed["parts"] as? [[String: Any]] ?? []
            func text(_ type: String) -> String {
                parts.first { $0["type"] as? String == type }?["text"] as? String ?? ""
            }
            return Mail(to: (parsed["to"] as? [[String: Any]] ?? []).compactMap { $0["address"] as? String },
                        subject: parsed["subject"] as? String ?? "", messageID: parsed["message_id"] as? String ?? "",
                        text: text("text/plain"), html: text("text/html"))
        }
    }

    /// The token of the first link in `text` (`?token=…`).
    static func token(in text: String) -> String? {
        guard let range = text.range(of: #"token=[A-Za-z0-9_-]+"#, options: .regularExpression) else { return nil }
        return String(text[range].dropFirst("token=".count))
    }
}

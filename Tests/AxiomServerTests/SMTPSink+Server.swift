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

    /// Mail settings that send through this server (started with `--tls
    /// none`), with links under `http://shop.test`.
    var serverArguments: [String] {
        ["--smtp-host", "127.0.0.1", "--smtp-port", String(port), "--smtp-tls", "none",
         "--mail-from", "shop@example.com", "--public-url", "http://shop.test",
         "--mail-templates", URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
             .deletingLastPathComponent().appendingPathComponent("config/mail").path]
    }

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

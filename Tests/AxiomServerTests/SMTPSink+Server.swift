import Foundation
import Testing
import TestSupport

/// The SMTP sink as the server tests use it: the settings that send the
/// server's mail there, and each accepted message read back with Python's
/// `email` package, independent of the server's own MIME writer.
extension SMTPSink {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A sink without TLS or AUTH, as a relay on the same host.
    convenience init() throws {
        try self.init(["--tls", "none"])
    }

    /// One accepted message as Python's `email` parsed it.
    struct Message {
        let to: String
        let subject: String
        let messageID: String
        let text: String
        let html: String
    }

    /// Mail settings that send through this sink, which must run with the
    /// same `tls` (and `--auth` when `auth`), with links under `publicURL`.
    func serverArguments(tls: String = "none", auth: Bool = false, publicURL: String = "http://shop.test",
                         fromName: String = "Axiom Shop") -> [String] {
        ["--smtp-host", tls == "none" ? "127.0.0.1" : "localhost", "--smtp-port", String(port), "--smtp-tls", tls,
         "--mail-from", "shop@example.com", "--mail-from-name", fromName, "--public-url", publicURL,
         "--mail-templates", Self.root.appendingPathComponent("config/mail").path, "--jobs-poll-interval", "0.05"]
            + (tls == "none" ? [] : ["--smtp-ca-file", caFile])
            + (auth ? ["--smtp-username", Self.user, "--smtp-password", Self.password] : [])
    }

    /// The settings of a sink without TLS.
    var serverArguments: [String] { serverArguments() }

    /// The messages accepted so far, in order.
    func messages() throws -> [Message] {
        try accepted().map { accepted in
            let raw = try String(contentsOfFile: accepted.rawPath, encoding: .utf8)
            let parsed = try PythonTool.run("""
                import sys, json, email, email.policy
                m = email.message_from_string(sys.stdin.read(), policy=email.policy.default)
                print(json.dumps({"to": str(m["To"]), "subject": str(m["Subject"]), "id": str(m["Message-ID"]),
                                  "text": m.get_body(preferencelist=("plain",)).get_content(),
                                  "html": m.get_body(preferencelist=("html",)).get_content()}))
                """, input: raw)
            let object = try JSONSerialization.jsonObject(with: Data(parsed.utf8)) as? [String: String] ?? [:]
            return Message(to: object["to"] ?? "", subject: object["subject"] ?? "", messageID: object["id"] ?? "",
                           text: object["text"] ?? "", html: object["html"] ?? "")
        }
    }

    /// Waits (up to `seconds`) until `count` messages were accepted.
    func waitForMails(_ count: Int, seconds: Double = 20) throws -> [Message] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let found = try messages()
            if found.count >= count { return found }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try messages()
    }

    /// The token of the first link in `text` (`?token=…`).
    static func token(in text: String) -> String? {
        guard let range = text.range(of: #"token=[A-Za-z0-9_-]+"#, options: .regularExpression) else { return nil }
        return String(text[range].dropFirst("token=".count))
    }
}

import AxiomTestSupport
import Foundation
import TestSupport
@testable import Capabilities

/// aiosmtpd run by `smtp_server.py` for one test: its port, the CA it made,
/// and the messages it accepted, each parsed by `mail_parse.py`.
final class SMTPTestServer {
    struct Accepted {
        let envelope: [String: Any]
        let rawPath: String

        var mailFrom: String? { envelope["mail_from"] as? String }
        var recipients: [String] { envelope["rcpt_tos"] as? [String] ?? [] }
        var mailOptions: [String] { envelope["mail_options"] as? [String] ?? [] }
        var connection: Int { envelope["connection"] as? Int ?? -1 }
        var authenticated: Bool { envelope["authenticated"] as? Bool ?? false }
        var overTLS: Bool { envelope["tls"] as? Bool ?? false }

        /// The message as Python's email package reads it.
        func parsed() throws -> [String: Any] {
            let output = try PythonTool.run(script: SMTPTestServer.script("mail_parse.py"), arguments: [rawPath])
            return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
        }
    }

    static let user = "user"
    static let password = "secret"

    let directory: TempDirectory
    let port: UInt16
    let caFile: String
    private let server: PythonServer

    /// - Parameter arguments: `smtp_server.py`'s options (`--tls`, `--auth`, …).
    init(_ arguments: [String]) throws {
        directory = try TempDirectory(prefix: "axiom-smtp")
        server = try PythonServer(script: Self.script("smtp_server.py"),
                                  arguments: ["--dir", directory.url.path, "--lifetime", "120"] + arguments,
                                  logPath: directory.path("server.log"))
        let ready = try server.readyObject()
        port = UInt16(ready["port"] as? Int ?? 0)
        caFile = ready["ca"] as? String ?? ""
    }

    deinit { server.stop() }

    func stop() { server.stop() }

    /// Settings for this server; `security` must match its `--tls`.
    func settings(_ security: MailTransportSettings.Security, username: String? = nil, password: String? = nil,
                  trustingItsCA: Bool = true) -> MailTransportSettings {
        MailTransportSettings(host: "localhost", port: port, security: security, username: username, password: password,
                              caFile: trustingItsCA ? caFile : nil, ehloName: "client.test",
                              connectTimeout: .seconds(10), commandTimeout: .seconds(10))
    }

    /// Every accepted message, in the order accepted.
    func accepted() throws -> [Accepted] {
        var messages: [Accepted] = []
        for number in 1... {
            let base = directory.path("\(number)")
            guard let data = FileManager.default.contents(atPath: base + ".json") else { break }
            let envelope = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            messages.append(Accepted(envelope: envelope, rawPath: base + ".eml"))
        }
        return messages
    }

    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(name).path
    }
}

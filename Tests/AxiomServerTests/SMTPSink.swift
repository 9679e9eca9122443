import Foundation
import Testing

/// A real SMTP server for a test: `scripts/smtp_sink.py` (aiosmtpd) on
/// 127.0.0.1 without TLS, writing each accepted message to a directory;
/// each message is read back with Python's `email` package, independent
/// of the server's own MIME writer. Stopped by `stop()` (its stdin closed)
/// or after its lifetime.
final class SMTPSink {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// One accepted message as Python's `email` parsed it.
    struct Message {
        let to: String
        let subject: String
        let messageID: String
        let text: String
        let html: String
    }

    let port: Int
    let directory: URL
    private let process: Process
    private let stdin: Pipe

    init(lifetimeSeconds: Int = 120) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.root.appendingPathComponent("scripts/smtp_sink.py").path, "--dir", directory.path,
                             "--tls", "none", "--lifetime", String(lifetimeSeconds)]
        stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line: [UInt8] = []
        while let byte = try stdout.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        let first = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
        port = try #require(first?["port"] as? Int)
    }

    /// Mail settings that send through this server, with links under `http://shop.test`.
    var serverArguments: [String] {
        ["--smtp-host", "127.0.0.1", "--smtp-port", String(port), "--smtp-tls", "none",
         "--mail-from", "shop@example.com", "--public-url", "http://shop.test",
         "--mail-templates", Self.root.appendingPathComponent("config/mail").path]
    }

    /// The messages accepted so far, in order.
    func messages() throws -> [Message] {
        var messages: [Message] = []
        var number = 1
        while FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(number).json").path) {
            let raw = try String(contentsOf: directory.appendingPathComponent("\(number).eml"), encoding: .utf8)
            let parsed = try PythonTool.run("""
                import sys, json, email, email.policy
                m = email.message_from_string(sys.stdin.read(), policy=email.policy.default)
                print(json.dumps({"to": str(m["To"]), "subject": str(m["Subject"]), "id": str(m["Message-ID"]),
                                  "text": m.get_body(preferencelist=("plain",)).get_content(),
                                  "html": m.get_body(preferencelist=("html",)).get_content()}))
                """, input: raw)
            let object = try JSONSerialization.jsonObject(with: Data(parsed.utf8)) as? [String: String] ?? [:]
            messages.append(Message(to: object["to"] ?? "", subject: object["subject"] ?? "",
                                    messageID: object["id"] ?? "", text: object["text"] ?? "", html: object["html"] ?? ""))
            number += 1
        }
        return messages
    }

    /// Waits (up to `seconds`) until `count` messages were accepted.
    func waitForMessages(_ count: Int, seconds: Double = 20) throws -> [Message] {
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

    func stop() {
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

import Foundation

/// aiosmtpd run by `scripts/smtp_sink.py` for one test: its port, the CA it
/// made, and the messages it accepted, each parsed by
/// `scripts/mail_parse.py` (Python's email package, not this service's code).
public final class SMTPSink: @unchecked Sendable {
    public struct Accepted {
        public let envelope: [String: Any]
        public let rawPath: String

        public var mailFrom: String? { envelope["mail_from"] as? String }
        public var recipients: [String] { envelope["rcpt_tos"] as? [String] ?? [] }
        public var mailOptions: [String] { envelope["mail_options"] as? [String] ?? [] }
        public var connection: Int { envelope["connection"] as? Int ?? -1 }
        /// RCPT and DATA had arrived with MAIL (the client pipelined them).
        public var pipelined: Bool { envelope["pipelined"] as? Bool ?? false }
        public var authenticated: Bool { envelope["authenticated"] as? Bool ?? false }
        public var overTLS: Bool { envelope["tls"] as? Bool ?? false }

        public init(envelope: [String: Any], rawPath: String) {
            self.envelope = envelope
            self.rawPath = rawPath
        }

        /// The message as Python's email package reads it.
        public func parsed() throws -> [String: Any] {
            let output = try PythonTool.run(script: SMTPSink.script("mail_parse.py"), arguments: [rawPath])
            return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// The AUTH login `--auth` accepts.
    public static let user = "user"
    public static let password = "secret"

    public let directory: URL
    public let port: UInt16
    public let caFile: String
    private let server: PythonServer

    /// - Parameter arguments: `smtp_sink.py`'s options (`--tls`, `--auth`, `--defer`, …).
    public init(_ arguments: [String]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        server = try PythonServer(script: Self.script("smtp_sink.py"),
                                  arguments: ["--dir", directory.path, "--lifetime", "300"] + arguments,
                                  logPath: directory.appendingPathComponent("server.log").path)
        let ready = try server.readyObject()
        port = UInt16(ready["port"] as? Int ?? 0)
        caFile = ready["ca"] as? String ?? ""
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    public func stop() { server.stop() }

    /// Every accepted message, in the order accepted.
    public func accepted() throws -> [Accepted] {
        var messages: [Accepted] = []
        for number in 1... {
            let base = directory.appendingPathComponent("\(number)").path
            guard let data = FileManager.default.contents(atPath: base + ".json") else { break }
            let envelope = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
            messages.append(Accepted(envelope: envelope, rawPath: base + ".eml"))
        }
        return messages
    }

    /// Waits (at most `timeout`) until at least `count` messages were accepted.
    public func waitForMessages(_ count: Int, timeout: TimeInterval = 30) throws -> [Accepted] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let messages = try accepted()
            if messages.count >= count { return messages }
            if Date() > deadline {
                throw PythonServer.Failure(description: "\(messages.count) of \(count) messages arrived within \(timeout) s")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    static func script(_ name: String) -> String { PythonServer.script(name) }
}

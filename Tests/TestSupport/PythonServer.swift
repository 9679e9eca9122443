import Foundation
import Glibc

/// A Python 3 server script a test runs beside it (aiosmtpd, an HTTPS
/// receiver): started with its arguments, ready once it prints its first
/// line (what it tells the test, JSON by convention), stopped by its pid.
/// Its stdin stays open while the test runs; the script exits when it
/// closes, so a test process that dies leaves no server behind.
public final class PythonServer: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The first line the script printed.
    public let readyLine: String
    public let pid: Int32
    private let process: Process
    private let stdin: Pipe
    private let lock = NSLock()
    private var stopped = false

    /// Starts `script` and waits (at most `readyTimeout`) for its first
    /// line; its stderr goes to `logPath` when given.
    public init(script: String, arguments: [String], logPath: String? = nil,
                readyTimeout: DispatchTimeInterval = .seconds(30)) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        if let logPath {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: logPath)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        let line = Locked<String?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let reader = stdout.fileHandleForReading
        Thread.detachNewThread {
            var bytes: [UInt8] = []
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                bytes += chunk
                if let end = bytes.firstIndex(of: 0x0A) {
                    bytes = Array(bytes[..<end])
                    break
                }
            }
            line.set(String(decoding: bytes, as: UTF8.self))
            ready.signal()
        }
        self.process = process
        self.stdin = stdin
        self.pid = process.processIdentifier
        guard ready.wait(timeout: .now() + readyTimeout) == .success, let first = line.get() ?? nil, !first.isEmpty else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let log = logPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
            throw Failure(description: "\(script) did not get ready: \(log)")
        }
        self.readyLine = first
    }

    /// The ready line as a JSON object.
    public func readyObject() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(readyLine.utf8)) as? [String: Any] else {
            throw Failure(description: "not a JSON object: \(readyLine)")
        }
        return object
    }

    /// SIGTERM to its pid, then waits for it to exit. Safe to call twice.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        kill(pid, SIGTERM)
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { stop() }

    /// The path of `scripts/<name>` in this repository.
    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/\(name)").path
    }
}

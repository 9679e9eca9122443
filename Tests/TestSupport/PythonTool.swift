import Foundation

/// Runs a short Python 3 program (or a script file) with `input` on stdin
/// and returns its stdout: tests check what the service wrote with
/// Python's own parsers (prometheus_client, email, hashlib), independent of
/// the service's code.
public enum PythonTool {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    public static func run(_ program: String, input: String) throws -> String {
        try run(arguments: ["-c", program], input: input)
    }

    /// The script at `path` with `arguments`.
    public static func run(script path: String, arguments: [String] = [], input: String = "") throws -> String {
        try run(arguments: [path] + arguments, input: input)
    }

    private static func run(arguments: [String], input: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        // stderr on its own thread: a chatty program must not fill one
        // pipe while this reads the other.
        let errors = Locked<Data>(Data())
        let drained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            errors.set(stderr.fileHandleForReading.readDataToEndOfFile())
            drained.signal()
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "python3 failed: \(String(decoding: errors.get(), as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }
}

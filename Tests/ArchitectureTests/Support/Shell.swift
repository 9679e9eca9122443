import Foundation

/// A finished child process.
struct ShellResult {
    let status: Int32
    let output: String
}

enum Shell {
    /// The `swift` driver on PATH.
    static func swiftExecutable() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw ShellError.notFound("swift on PATH (\(path))")
    }

    /// Runs `swift` with `arguments` in `directory`; stdout and stderr merged.
    /// `temporaryDirectory` becomes the child's TMPDIR, where SwiftPM leaves
    /// its lock files, so that the caller can remove them with it. The
    /// blocking wait happens on a Dispatch thread, never on the concurrency
    /// pool that the other tests run on.
    static func swift(_ arguments: [String], in directory: URL, temporaryDirectory: URL) async throws -> ShellResult {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try runSwift(arguments, in: directory, temporaryDirectory: temporaryDirectory)
                })
            }
        }
    }

    private static func runSwift(_ arguments: [String], in directory: URL,
                                 temporaryDirectory: URL) throws -> ShellResult {
        try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = try swiftExecutable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporaryDirectory.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ShellResult(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}

enum ShellError: Error, CustomStringConvertible {
    case notFound(String)
    case failed(String)

    var description: String {
        switch self {
        case .notFound(let what): "not found: \(what)"
        case .failed(let output): "command failed: \(output)"
        }
    }
}

import Foundation

/// The real `axiom-server` binary, started on a free port (`--port 0`) and
/// stopped by the test. Its JSON log lines are collected from stdout.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private let lines = LockedLines()
    private(set) var port = 0

    static var binaryURL: URL {
        // Tests run from .build/<config>/…PackageTests.xctest; the binary sits beside it.
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBinary.deletingLastPathComponent().appendingPathComponent("axiom-server")
    }

    /// A temporary directory of its own (the SQLite file, unless the test
    /// names a database).
    let databaseDirectory: URL
    /// The database it runs on: `database`, or a fresh one of this run's
    /// backend (`ServerDatabase`) unless the arguments or environment name
    /// one (then `nil`).
    let database: ServerDatabase?

    /// config/README.md's load-test settings for the rate limits: tests
    /// send, sign in and register far more often from 127.0.0.1 than a
    /// real client may. A test's own environment or flags win over them;
    /// `loadTestLimits: false` runs the shipped defaults.
    static let loadTestEnvironment = [
        "AXIOM_RATE_LIMIT_PER_SECOND": "100000", "AXIOM_RATE_LIMIT_BURST": "200000",
        "AXIOM_RATE_LIMIT_USER_PER_SECOND": "100000", "AXIOM_RATE_LIMIT_USER_BURST": "200000",
        "AXIOM_RATE_LIMIT_SIGN_IN_PER_MINUTE": "100000000", "AXIOM_RATE_LIMIT_SIGN_IN_BURST": "10000000",
        "AXIOM_RATE_LIMIT_REGISTRATION_PER_MINUTE": "100000000", "AXIOM_RATE_LIMIT_REGISTRATION_BURST": "10000000",
        "AXIOM_RATE_LIMIT_CHECKOUT_PER_MINUTE": "100000000", "AXIOM_RATE_LIMIT_CHECKOUT_BURST": "10000000",
        "AXIOM_RATE_LIMIT_PASSWORD_RESET_PER_MINUTE": "100000000", "AXIOM_RATE_LIMIT_PASSWORD_RESET_BURST": "10000000",
    ]

    init(arguments: [String] = [], environment: [String: String] = [:], database: ServerDatabase? = nil,
         loadTestLimits: Bool = true) {
        databaseDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("axiom-process-\(UUID().uuidString)")
        process.executableURL = Self.binaryURL
        let namesDatabase = arguments.contains { $0.hasPrefix("--database") } || environment["AXIOM_DATABASE"] != nil
            || environment["AXIOM_DATABASE_URL"] != nil
            || arguments.first == "healthcheck"
        self.database = namesDatabase ? nil : database ?? ServerDatabase.fresh(in: databaseDirectory)
        process.arguments = arguments + (self.database?.arguments ?? [])
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AXIOM_") }
        if loadTestLimits { env.merge(Self.loadTestEnvironment) { _, new in new } }
        env.merge(environment) { _, new in new }
        process.environment = env
        process.standardOutput = output
        process.standardError = output
        let lines = self.lines
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                lines.finish()
                handle.readabilityHandler = nil
            } else {
                lines.append(data)
            }
        }
    }

    /// Runs the binary under `taskset -c cpus` (its affinity mask limited to
    /// those CPUs); call before `start`.
    func pin(toCPUs cpus: String) {
        process.arguments = ["-c", cpus, Self.binaryURL.path] + (process.arguments ?? [])
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
    }

    /// Starts the binary and waits (bounded) for its "listening" log line.
    func start() throws {
        if let error = database?.setupError { throw ProcessError.didNotStart("database set-up: \(error)") }
        try process.run()
        for _ in 0..<500 {
            if let line = lines.all().first(where: { $0.contains(#""event":"listening""#) }),
               let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               let port = object["port"] as? Int {
                self.port = port
                return
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        process.terminate()
        throw ProcessError.didNotStart(lines.all().joined(separator: "\n"))
    }

    /// Runs the binary to completion (for --help and refusals).
    func runToExit() throws -> (status: Int32, output: String) {
        try process.run()
        process.waitUntilExit()
        // The reader thread may not have drained the pipe yet on a busy
        // machine: wait (bounded) for its end of file, not a fixed pause.
        for _ in 0..<1_500 where !lines.isFinished { usleep(20_000) }
        return (process.terminationStatus, lines.all().joined(separator: "\n"))
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits (bounded) for exit; returns the exit status, nil if still running.
    func waitForExit(seconds: Double) -> Int32? {
        let attempts = Int(seconds * 50)
        for _ in 0..<attempts where process.isRunning { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    var log: [String] { lines.all() }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: databaseDirectory)
    }

    enum ProcessError: Error { case didNotStart(String) }
}

final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = Data()
    private var finished = false

    func append(_ data: Data) {
        lock.lock()
        buffer.append(data)
        lock.unlock()
    }

    /// The writer closed its end: everything it wrote is here.
    func finish() {
        lock.lock()
        finished = true
        lock.unlock()
    }

    var isFinished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return finished
    }

    func all() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

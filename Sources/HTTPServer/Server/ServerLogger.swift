import Glibc
import Synchronization

/// Structured log lines: one JSON object per line, written whole with a
/// single write(2) so lines from different threads never interleave.
public struct ServerLogger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, notice, warning, error

        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public let minimumLevel: Level
    private let sink: @Sendable (String) -> Void

    /// Logs to `sink`; the default writes lines to standard output.
    public init(minimumLevel: Level = .info, sink: (@Sendable (String) -> Void)? = nil) {
        self.minimumLevel = minimumLevel
        self.sink = sink ?? ServerLogger.writeToStandardOutput
    }

    /// A logger that drops everything (tests, benchmarks).
    public static let disabled = ServerLogger(minimumLevel: .error) { _ in }

    /// `fields` values are strings; numbers are passed through `numbers` so
    /// they stay JSON numbers.
    public func log(_ level: Level, _ event: String, _ fields: [(String, String)] = [],
                    numbers: [(String, Int)] = []) {
        guard level >= minimumLevel else { return }
        var line = "{\"time\":"
        JSONString.append(LogTimestamp.rfc3339Now(), to: &line)
        line += ",\"level\":\"\(level.name)\",\"event\":"
        JSONString.append(event, to: &line)
        for (name, value) in fields {
            line += ","
            JSONString.append(name, to: &line)
            line += ":"
            JSONString.append(value, to: &line)
        }
        for (name, value) in numbers {
            line += ","
            JSONString.append(name, to: &line)
            line += ":\(value)"
        }
        line += "}\n"
        sink(line)
    }

    private static func writeToStandardOutput(_ line: String) {
        var bytes = Array(line.utf8)
        var offset = 0
        bytes.withUnsafeMutableBytes { buffer in
            while offset < buffer.count {
                let written = write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { return }
            }
        }
    }
}

import Domain
import HTTPServer

/// The command line and environment of `axiom-server`. Flags win over
/// `AXIOM_*` environment variables, which win over built-in defaults.
struct ServerOptions {
    var host = "127.0.0.1"
    var port = 8080
    var headerTimeoutSeconds = 10.0
    var idleTimeoutSeconds = 60.0
    var shutdownDeadlineSeconds = 10.0
    var maxConnections = 10_000
    var maxBodyBytes = 1024 * 1024
    var logLevel = ServerLogger.Level.info
    var databasePath = "./data/axiom.db"
    var currency = Currency.usd
    var adminEmail: String?
    var adminPassword: String?
    var adminName = "Administrator"
    var sessionLifetime = Duration.seconds(24 * 3600)
    var sessionIdleTimeout = Duration.seconds(30 * 60)
    var maxSessions = 100_000

    struct Option: Sendable {
        let flag: String
        let environment: String
        let help: String
        let apply: @Sendable (inout ServerOptions, String) throws -> Void
    }

    struct OptionError: Error, CustomStringConvertible {
        let description: String
    }

    static let options: [Option] = [
        Option(flag: "--host", environment: "AXIOM_HOST", help: "address to listen on (default 127.0.0.1; 0.0.0.0 for all)") { options, value in
            options.host = value
        },
        Option(flag: "--port", environment: "AXIOM_PORT", help: "TCP port, 0 picks a free one (default 8080)") { options, value in
            options.port = try integer(value, name: "port", in: 0...65535)
        },
        Option(flag: "--header-timeout", environment: "AXIOM_HEADER_TIMEOUT", help: "seconds to receive a header section (default 10)") { options, value in
            options.headerTimeoutSeconds = try seconds(value, name: "header-timeout")
        },
        Option(flag: "--idle-timeout", environment: "AXIOM_IDLE_TIMEOUT", help: "seconds an idle keep-alive connection stays open (default 60)") { options, value in
            options.idleTimeoutSeconds = try seconds(value, name: "idle-timeout")
        },
        Option(flag: "--shutdown-deadline", environment: "AXIOM_SHUTDOWN_DEADLINE", help: "seconds in-flight requests get at shutdown (default 10)") { options, value in
            options.shutdownDeadlineSeconds = try seconds(value, name: "shutdown-deadline")
        },
        Option(flag: "--max-connections", environment: "AXIOM_MAX_CONNECTIONS", help: "open connections before 503 (default 10000)") { options, value in
            options.maxConnections = try integer(value, name: "max-connections", in: 1...1_000_000)
        },
        Option(flag: "--max-body-bytes", environment: "AXIOM_MAX_BODY_BYTES", help: "largest request body accepted (default 1048576)") { options, value in
            options.maxBodyBytes = try integer(value, name: "max-body-bytes", in: 0...(1 << 30))
        },
        Option(flag: "--database", environment: "AXIOM_DATABASE", help: "SQLite database file, its directory created (default ./data/axiom.db)") { options, value in
            guard !value.isEmpty else { throw OptionError(description: "database must be a file path; got an empty value") }
            options.databasePath = value
        },
        Option(flag: "--currency", environment: "AXIOM_CURRENCY", help: "ISO 4217 currency of every price (default USD)") { options, value in
            guard let currency = try? Currency(value) else {
                throw OptionError(description: "currency must be an ISO 4217 code of three capital letters; got '\(value)'")
            }
            options.currency = currency
        },
        Option(flag: "--admin-email", environment: "AXIOM_ADMIN_EMAIL", help: "first admin's email, created at start-up if new") { options, value in
            options.adminEmail = value
        },
        Option(flag: "--admin-password", environment: "AXIOM_ADMIN_PASSWORD", help: "first admin's password (prefer the environment)") { options, value in
            options.adminPassword = value
        },
        Option(flag: "--admin-name", environment: "AXIOM_ADMIN_NAME", help: "first admin's name (default Administrator)") { options, value in
            options.adminName = value
        },
        Option(flag: "--session-ttl", environment: "AXIOM_SESSION_TTL", help: "seconds a sign-in token stays valid (default 86400)") { options, value in
            options.sessionLifetime = .seconds(try seconds(value, name: "session-ttl"))
        },
        Option(flag: "--log-level", environment: "AXIOM_LOG_LEVEL", help: "debug, info, notice, warning or error (default info)") { options, value in
            guard let level = ServerLogger.Level.allCases.first(where: { $0.name == value }) else {
                throw OptionError(description: "log-level must be one of debug, info, notice, warning, error; got '\(value)'")
            }
            options.logLevel = level
        },
    ]

    static var usage: String {
        var text = "usage: axiom-server [options]\n\noptions (each also settable by its environment variable):\n"
        for option in options {
            let flag = "  \(option.flag) VALUE"
            text += flag + String(repeating: " ", count: max(1, 28 - flag.count))
            text += "\(option.help) [\(option.environment)]\n"
        }
        text += "  --help                    show this text\n"
        return text
    }

    enum Parsed {
        case run(ServerOptions)
        case help
    }

    /// Collects one raw value per option (environment first, then flags
    /// over it), then validates: a bad environment value that a flag
    /// overrides is never looked at.
    static func parse(arguments: [String], environment: [String: String]) throws -> Parsed {
        var raw: [String: String] = [:]
        for option in options {
            if let value = environment[option.environment] { raw[option.flag] = value }
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--help" || argument == "-h" { return .help }
            let (flag, inlineValue) = splitFlag(argument)
            guard options.contains(where: { $0.flag == flag }) else {
                throw OptionError(description: "unknown option '\(argument)' (see --help)")
            }
            if let inlineValue {
                raw[flag] = inlineValue
            } else {
                index += 1
                guard index < arguments.count else { throw OptionError(description: "\(flag) needs a value") }
                raw[flag] = arguments[index]
            }
            index += 1
        }
        var parsed = ServerOptions()
        for option in options {
            if let value = raw[option.flag] { try option.apply(&parsed, value) }
        }
        return .run(parsed)
    }

    private static func splitFlag(_ argument: String) -> (String, String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func integer(_ text: String, name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw OptionError(description: "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound); got '\(text)'")
        }
        return value
    }

    private static func seconds(_ text: String, name: String) throws -> Double {
        guard let value = Double(text), value > 0, value <= 86_400 else {
            throw OptionError(description: "\(name) must be a number of seconds in (0, 86400]; got '\(text)'")
        }
        return value
    }

    var serverConfiguration: HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: host, port: port,
            limits: ParserLimits(maxBodyBytes: maxBodyBytes),
            headerTimeout: .milliseconds(Int(headerTimeoutSeconds * 1000)),
            bodyTimeout: .milliseconds(Int(headerTimeoutSeconds * 1000)),
            idleTimeout: .milliseconds(Int(idleTimeoutSeconds * 1000)),
            maxConnections: maxConnections,
            shutdownDeadline: .milliseconds(Int(shutdownDeadlineSeconds * 1000)))
    }
}

import FoundationEssentials
import Glibc
import HTTPServer

/// Turns the command line, the environment and the configuration file into
/// ``ServerOptions``. Precedence, lowest first: built-in defaults, the file
/// (`--config PATH` or `AXIOM_CONFIG`), the environment (`AXIOM_<KEY>`),
/// flags (`--<key>`). The file is checked whole (it is an artefact people
/// deploy: an unknown key or a wrong value in it is refused even where
/// something else overrides it); of the environment and the flags only the
/// value that wins is looked at.
enum ConfigurationLoader {
    enum Outcome {
        case run(ServerOptions, warnings: [String])
        case help
        /// `--print-config`: show the effective configuration and exit.
        case printConfiguration(ServerOptions)
    }

    static let configFlag = "--config"
    static let configEnvironment = "AXIOM_CONFIG"

    static func load(arguments: [String], environment: [String: String],
                     readFile: (String) throws -> Data = readWholeFile) throws -> Outcome {
        let byFlag = Dictionary(uniqueKeysWithValues: ServerOptions.settings.map { ($0.flag, $0) })
        var winners: [String: ConfigValue] = [:]
        var configPath = environment[configEnvironment]
        var printOnly = false

        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { return .help }
            if argument == "--print-config" {
                printOnly = true
                continue
            }
            let (flag, inlineValue) = splitFlag(argument)
            guard flag == configFlag || byFlag[flag] != nil else {
                throw ConfigurationError("unknown option '\(argument)' (see --help)")
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw ConfigurationError("\(flag) needs a value") }
                value = arguments[index]
                index += 1
            }
            if flag == configFlag {
                configPath = value
            } else if let setting = byFlag[flag] {
                winners[setting.key] = ConfigValue(payload: .text(value), source: "flag \(flag)")
            }
        }
        try refuseUnknownEnvironmentNames(in: environment)
        for setting in ServerOptions.settings where winners[setting.key] == nil {
            if let value = environment[setting.environmentName] {
                winners[setting.key] = ConfigValue(payload: .text(value), source: "environment \(setting.environmentName)")
            }
        }

        var options = ServerOptions()
        var explicitlySet = Set(winners.keys)
        if let configPath {
            guard !configPath.isEmpty else { throw ConfigurationError("--config needs a file path; got an empty value") }
            explicitlySet.formUnion(try applyFile(at: configPath, to: &options, readFile: readFile))
        }
        for setting in ServerOptions.settings {
            if let value = winners[setting.key] { try setting.apply(&options, value) }
        }
        // Two databases named is a mistake to refuse, not a choice to guess:
        // the SQLite file or PostgreSQL, one of them.
        if explicitlySet.contains("database"), options.databaseURL != nil {
            throw ConfigurationError("database and database_url are both set: use database for SQLite or database_url for PostgreSQL, not both")
        }
        try options.checkConsistency()
        if printOnly { return .printConfiguration(options) }
        return .run(options, warnings: [])
    }

    /// Returns the keys the file set.
    private static func applyFile(at path: String, to options: inout ServerOptions,
                                  readFile: (String) throws -> Data) throws -> Set<String> {
        let data: Data
        do {
            data = try readFile(path)
        } catch {
            throw ConfigurationError("cannot read config file \(path): \(Self.reason(error))")
        }
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigurationError("config file \(path) is not valid JSON: \(Self.reason(error))")
        }
        guard case .object(let members) = document else {
            throw ConfigurationError("config file \(path) must hold one JSON object of settings; it holds \(document.kind)")
        }
        let byKey = Dictionary(uniqueKeysWithValues: ServerOptions.settings.map { ($0.key, $0) })
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            guard let setting = byKey[key] else {
                let known = ServerOptions.settings.map(\.key).joined(separator: ", ")
                throw ConfigurationError("config file \(path): unknown key '\(key)'; the keys are \(known)")
            }
            try setting.apply(&options, ConfigValue(payload: .json(value), source: "config file \(path)"))
        }
        return Set(members.keys)
    }

    /// `AXIOM_*` variables that name no setting: most likely a typo
    /// (`AXIOM_PAYMENT_WEBHOOK_SECRT`), which would leave a default in place
    /// — here an unsigned webhook — so refused like an unknown key in the
    /// file. The names the repository's own test and benchmark tools read
    /// (`toolEnvironmentNames`) are not settings but are inherited by a
    /// server those tools start, so they are let through.
    static func unknownEnvironmentNames(in environment: [String: String]) -> [String] {
        let known = Set(ServerOptions.settings.map(\.environmentName) + [configEnvironment])
        return environment.keys.filter {
            $0.hasPrefix("AXIOM_") && !known.contains($0) && !toolEnvironmentNames.contains($0)
        }.sorted()
    }

    /// The `AXIOM_*` names scripts/, bench/ and Tests/ read for themselves
    /// (config/README.md lists them; ConfigurationTests checks that every
    /// `AXIOM_` name in the repository is a setting or one of these).
    static let toolEnvironmentNames: Set<String> = [
        "AXIOM_BIN", "AXIOM_BINARY", "AXIOM_BIN_BEFORE", "AXIOM_URL", "AXIOM_PATH_PREFIX",
        "AXIOM_TEST_DATABASE_URL", "AXIOM_TEST_SERVER_BACKEND", "AXIOM_FUZZ_SECONDS", "AXIOM_FUZZ_SEED",
        "AXIOM_PG_STATE", "AXIOM_PG_NETNS", "AXIOM_PG_LISTEN", "AXIOM_CLUSTER_STATE", "AXIOM_PEER_BENCH",
        "AXIOM_BENCH_PASSWORD", "AXIOM_PRODUCT_IDS", "AXIOM_CART_PRODUCTS", "AXIOM_BUYER_TOKENS",
        "AXIOM_SHOPPER_TOKENS", "AXIOM_SHOPPER_EMAILS", "AXIOM_SEARCH_TERMS", "AXIOM_SEARCH_QUERIES",
    ]

    private static func refuseUnknownEnvironmentNames(in environment: [String: String]) throws {
        let unknown = unknownEnvironmentNames(in: environment)
        guard !unknown.isEmpty else { return }
        let names = ServerOptions.settings.map(\.environmentName) + [configEnvironment]
        let each = unknown.map { name in
            let closest = names.min { editDistance(name, $0) < editDistance(name, $1) }!
            return "\(name) (did you mean \(closest)?)"
        }
        throw ConfigurationError("environment variable\(unknown.count == 1 ? "" : "s") "
            + each.joined(separator: ", ") + " \(unknown.count == 1 ? "is not a setting" : "are not settings") "
            + "of axiom-server; unset \(unknown.count == 1 ? "it" : "them") or correct the name (config/README.md)")
    }

    /// Levenshtein distance over bytes (the names are ASCII).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    private static func splitFlag(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// Reads a file with plain POSIX calls, so a failure reads as the
    /// system's own words ("No such file or directory").
    static func readWholeFile(_ path: String) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ConfigurationError(String(cString: strerror(errno))) }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
                guard data.count <= 1 << 20 else { throw ConfigurationError("larger than 1 MiB") }
            } else if count == 0 {
                return data
            } else if errno != EINTR {
                throw ConfigurationError(String(cString: strerror(errno)))
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? ConfigurationError { return error.description }
        if let error = error as? DecodingError, case .dataCorrupted(let context) = error {
            return context.underlyingError.map { "\($0)" } ?? context.debugDescription
        }
        return String(describing: error)
    }
}

extension ServerOptions {
    /// `--help`: every flag, what it accepts, its environment variable and default.
    static var usage: String {
        var text = """
            usage: axiom-server [--config PATH] [--KEY VALUE]... [--print-config]
                   axiom-server healthcheck [--port N] [--path /ready]

            Settings come from built-in defaults, then the JSON file given by --config
            (or AXIOM_CONFIG), then AXIOM_<KEY> environment variables, then flags.
            config/README.md describes every key; config/default.json holds the defaults.

              --config PATH                  JSON configuration file [AXIOM_CONFIG]
              --print-config                 print the effective configuration as JSON and exit
              --help                         show this text

            """
        let defaults = ServerOptions()
        for setting in settings {
            let flag = "  \(setting.flag) VALUE"
            text += flag + String(repeating: " ", count: max(1, 33 - flag.count)) + setting.help + "\n"
            text += String(repeating: " ", count: 33)
                + "[\(setting.environmentName); default \(setting.current(defaults).description)]\n"
        }
        return text
    }

    /// The configuration as a JSON object in settings order, as
    /// `config/default.json` writes it; the secrets are masked.
    func renderJSON(maskSecrets: Bool = true) -> String {
        let lines = Self.settings.map { setting -> String in
            var value = setting.current(self)
            if maskSecrets, ["admin_password", "metrics_token", "payment_webhook_secret", "smtp_password"].contains(setting.key), value != .null { value = .string("********") }
            if maskSecrets, setting.key == "database_url", case .string(let url) = value { value = .string(Self.maskingPassword(url)) }
            return "  \"\(setting.key)\": \(value.jsonText)"
        }
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }
}

extension ServerOptions {
    /// `postgres://user:secret@host/db` → `postgres://user:********@host/db`.
    static func maskingPassword(_ url: String) -> String {
        let parts = url.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let schemeEnd = parts[0].firstIndex(of: "/"),
              let colon = parts[0][schemeEnd...].firstIndex(of: ":") else { return url }
        return String(parts[0][...colon]) + "********@" + String(parts[1])
    }
}

extension JSONValue {
    /// The value as JSON text (scalars only; configuration holds no others).
    var jsonText: String {
        switch self {
        case .string(let text):
            return JSONString.quoted(text)
        default:
            return description
        }
    }
}

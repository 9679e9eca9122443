import Foundation
import Testing
@testable import AxiomServer

/// Configuration precedence (defaults < file < environment < flags) and
/// every way a bad configuration is refused, through the loader the binary
/// uses; the last tests run the real binary.
@Suite struct ConfigurationTests {
    /// Loads with `file` served as the contents of `/config.json`.
    private func load(_ arguments: [String] = [], environment: [String: String] = [:],
                      file: String? = nil) throws -> ServerOptions {
        let outcome = try ConfigurationLoader.load(arguments: arguments, environment: environment) { path in
            guard path == "/config.json", let file else { throw ConfigurationError("No such file or directory") }
            return Data(file.utf8)
        }
        guard case .run(let options, _) = outcome else {
            Issue.record("expected options, got \(outcome)")
            return ServerOptions()
        }
        return options
    }

    private func refusal(_ arguments: [String] = [], environment: [String: String] = [:], file: String? = nil) -> String {
        do {
            _ = try load(arguments, environment: environment, file: file)
            return "accepted"
        } catch {
            return String(describing: error)
        }
    }

    @Test func eachSourceOverridesTheOneBefore() throws {
        let file = #"{"port": 9001, "host": "0.0.0.0", "idle_timeout": 5, "log_level": "warning", "max_sessions": 7}"#
        let fromFile = try load(["--config", "/config.json"], file: file)
        #expect(fromFile.port == 9001)
        #expect(fromFile.host == "0.0.0.0")
        #expect(fromFile.serverConfiguration.idleTimeout == .seconds(5))
        #expect(fromFile.logLevel == .warning)
        #expect(fromFile.databasePath == "./data/axiom.db") // untouched: the default

        let environment = ["AXIOM_CONFIG": "/config.json", "AXIOM_PORT": "9002", "AXIOM_LOG_LEVEL": "error"]
        let fromEnvironment = try load(environment: environment, file: file)
        #expect(fromEnvironment.port == 9002)
        #expect(fromEnvironment.logLevel == .error)
        #expect(fromEnvironment.host == "0.0.0.0")
        #expect(fromEnvironment.maxSessions == 7)

        let fromFlags = try load(["--port", "9003", "--log-level=debug"], environment: environment, file: file)
        #expect(fromFlags.port == 9003)
        #expect(fromFlags.logLevel == .debug)
        #expect(fromFlags.maxSessions == 7)
    }

    @Test func aBadEnvironmentValueThatAFlagOverridesIsNotLookedAt() throws {
        let options = try load(["--port", "9123", "--host=0.0.0.0"],
                               environment: ["AXIOM_PORT": "not-a-port", "AXIOM_IDLE_TIMEOUT": "5"])
        #expect(options.port == 9123)
        #expect(options.host == "0.0.0.0")
        #expect(options.serverConfiguration.idleTimeout == .seconds(5))
    }

    @Test func settingsReachWhatTheyConfigure() throws {
        let options = try load(["--max-header-fields", "12", "--max-request-line-bytes", "1024",
                                "--body-timeout", "2.5", "--login-window", "60",
                                "--login-max-failures-per-account", "3", "--login-max-failures-per-pair", "4",
                                "--login-max-backoff", "10", "--login-max-pair-backoff", "120",
                                "--login-trust-period", "3600", "--session-ttl", "3600", "--currency", "EUR"])
        #expect(options.serverConfiguration.limits.maxHeaderCount == 12)
        #expect(options.serverConfiguration.limits.maxRequestLineBytes == 1024)
        #expect(options.serverConfiguration.bodyTimeout == .milliseconds(2500))
        #expect(options.loginThrottle.windowSeconds == 60)
        #expect(options.loginThrottle.accountFreeFailures == 3)
        #expect(options.loginThrottle.pairFreeFailures == 4)
        #expect(options.loginThrottle.maxBackoffSeconds == 10)
        #expect(options.loginThrottle.maxPairBackoffSeconds == 120)
        #expect(options.loginThrottle.trustPeriodSeconds == 3600)
        #expect(options.sessionLifetime == .seconds(3600))
        #expect(options.currency.code == "EUR")
    }

    @Test func theFileIsCheckedWholeEvenWhereOverridden() {
        let message = refusal(["--config", "/config.json", "--port", "80"], file: #"{"port": "80"}"#)
        #expect(message == #"port must be an integer in 0...65535; got "80" (config file /config.json)"#)
    }

    @Test(arguments: [
        (#"{"prot": 80}"#, "config file /config.json: unknown key 'prot'; the keys are host, port,"),
        (#"{"port": 70000}"#, "port must be an integer in 0...65535; got 70000 (config file /config.json)"),
        (#"{"port": 80.5}"#, "port must be an integer in 0...65535; got 80.5"),
        (#"{"port": true}"#, "port must be an integer in 0...65535; got true"),
        (#"{"host": 1}"#, "host must be an IPv4 address or host name; got 1"),
        (#"{"idle_timeout": 0}"#, "idle_timeout must be a number of seconds greater than 0 and at most 86400; got 0"),
        (#"{"idle_timeout": "5"}"#, #"idle_timeout must be a number of seconds greater than 0 and at most 86400; got "5""#),
        (#"{"log_level": "loud"}"#, #"log_level must be one of debug, info, notice, warning, error; got "loud""#),
        (#"{"currency": "usd"}"#, #"currency must be an ISO 4217 code of three capital letters; got "usd""#),
        (#"{"admin_email": ""}"#, #"admin_email must be a non-empty string or null; got """#),
        (#"{"max_connections": 0}"#, "max_connections must be an integer in 1...1000000; got 0"),
        (#"{"trusted_proxies": "10.0.0.1, proxy.local"}"#,
         #"trusted_proxies must be comma-separated IP addresses, or empty (in the file also a JSON array of strings); got "10.0.0.1, proxy.local""#),
        (#"{"trusted_proxies": ["10.0.0.1", 7]}"#,
         "trusted_proxies must be comma-separated IP addresses, or empty (in the file also a JSON array of strings); got an array"),
        (#"{"cors_allowed_origins": ["https://shop.example", "ftp://files.example"]}"#,
         "cors_allowed_origins must be comma-separated origins"),
        (#"{"ops_port": "9090"}"#, #"ops_port must be an integer in 0...65535 or null; got "9090""#),
        (#"{"ops_port": 70000}"#, "ops_port must be an integer in 0...65535 or null; got 70000"),
        (#"{"max_buffered_body_bytes": 1000}"#, "max_buffered_body_bytes (1000) must be at least max_body_bytes (1048576)"),
        (#"[1, 2]"#, "config file /config.json must hold one JSON object of settings; it holds an array"),
        (#"{"port": 80,"#, "config file /config.json is not valid JSON"),
    ])
    func fileRefusalsNameTheKeyAndTheAcceptedValues(file: String, expected: String) {
        #expect(refusal(["--config", "/config.json"], file: file).hasPrefix(expected))
    }

    @Test func listSettingsAcceptAJSONArrayInTheFileAsWellAsCommaSeparatedText() throws {
        let file = #"{"trusted_proxies": ["10.0.0.1", "::1"], "cors_allowed_origins": ["https://shop.example", "http://127.0.0.1:3000"]}"#
        let fromArrays = try load(["--config", "/config.json"], file: file)
        #expect(fromArrays.trustedProxies == "10.0.0.1,::1")
        #expect(fromArrays.corsAllowedOrigins == "https://shop.example,http://127.0.0.1:3000")
        let fromText = try load(["--trusted-proxies", "10.0.0.1,::1",
                                 "--cors-allowed-origins", "https://shop.example,http://127.0.0.1:3000"])
        #expect(fromText.trustedProxies == fromArrays.trustedProxies)
        #expect(fromText.corsAllowedOrigins == fromArrays.corsAllowedOrigins)
        #expect(try load(["--config", "/config.json"], file: #"{"trusted_proxies": []}"#).trustedProxies == "")
    }

    @Test func connectionSettingsReachTheServerConfiguration() throws {
        let outcome = try ConfigurationLoader.load(
            arguments: ["--trusted-proxies", "10.0.0.1, ::1", "--body-min-rate", "0", "--ops-port", "9090",
                        "--event-loops", "3"],
            environment: ["AXIOM_MAX_CONNECTIONS_PER_ADDRESS": "32", "AXIOM_BODY_GRACE": "2.5"])
        guard case .run(let options, _) = outcome else { Issue.record("not a run: \(outcome)"); return }
        let server = options.serverConfiguration
        #expect(server.trustedProxies == ["10.0.0.1", "::1"])
        #expect(server.maxConnectionsPerAddress == 32)
        #expect(server.bodyMinRate == 0)
        #expect(server.bodyGrace == .milliseconds(2_500))
        #expect(server.eventLoops == 3)
        #expect(options.opsServerConfiguration.port == 9090)
        #expect(options.opsServerConfiguration.maxConnectionsPerAddress == 32)
    }

    @Test func environmentAndFlagRefusalsNameTheirSource() {
        #expect(refusal(environment: ["AXIOM_PORT": "70000"])
            == "port must be an integer in 0...65535; got '70000' (environment AXIOM_PORT)")
        #expect(refusal(["--session-ttl", "-1"])
            == "session_ttl must be a number of seconds greater than 0 and at most 31622400; got '-1' (flag --session-ttl)")
        #expect(refusal(["--colour", "blue"]) == "unknown option '--colour' (see --help)")
        #expect(refusal(["--port"]) == "--port needs a value")
        #expect(refusal(["--config", "/missing.json"]) == "cannot read config file /missing.json: No such file or directory")
        #expect(refusal(["--config="]) == "--config needs a file path; got an empty value")
        #expect(refusal(["--admin-email", "a@example.com"])
            == "admin_email and admin_password must be set together (or neither)")
    }

    @Test func unknownAxiomVariablesAreRefusedNamingTheClosestSetting() throws {
        #expect(throws: ConfigurationError.self) {
            _ = try ConfigurationLoader.load(arguments: [], environment: ["AXIOM_PROT": "80", "HOME": "/root"])
        }
        do {
            _ = try ConfigurationLoader.load(arguments: ["--print-config"],
                                             environment: ["AXIOM_PAYMENT_WEBHOOK_SECRT": "whsec", "AXIOM_PORT": "81"])
            Issue.record("an unknown AXIOM_ variable was accepted")
        } catch {
            #expect("\(error)".contains("AXIOM_PAYMENT_WEBHOOK_SECRT (did you mean AXIOM_PAYMENT_WEBHOOK_SECRET?)"))
        }
        // The tools' own names, inherited by a server they start, and other programs' variables pass.
        let outcome = try ConfigurationLoader.load(arguments: [], environment: [
            "AXIOM_TEST_DATABASE_URL": "postgres://x", "AXIOM_BIN": "/bin/x", "AXIOM_PORT": "81", "HOME": "/root",
        ])
        guard case .run(let options, _) = outcome else {
            Issue.record("expected options")
            return
        }
        #expect(options.port == 81)
    }

    /// Every `AXIOM_` name written anywhere in the repository (scripts,
    /// bench, tests, Dockerfile, compose.yaml, docs) is a setting, the config
    /// file's variable, or a tool name the server lets through: a tool that
    /// starts the server with its own variable in the environment must not
    /// stop it.
    @Test func everyAxiomNameInTheRepositoryIsASettingOrAToolName() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let settings = Set(ServerOptions.settings.map(\.environmentName) + [ConfigurationLoader.configEnvironment])
        // C identifiers, not environment variables.
        let cNames: Set<String> = ["AXIOM_SHARED_MAP_VFS", "AXIOM_CSYSTEMSHIMS_H", "AXIOM_CSQLITESHAREDMAP_H"]
        var found: Set<String> = []
        let pattern = try NSRegularExpression(pattern: "AXIOM_[A-Z0-9_]+")
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey])
        while let url = enumerator?.nextObject() as? URL {
            let name = url.lastPathComponent
            if name.hasPrefix(".") && name != "." { enumerator?.skipDescendants(); continue }
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                found.insert((text as NSString).substring(with: match.range))
            }
        }
        #expect(found.contains("AXIOM_TEST_DATABASE_URL") && found.contains("AXIOM_PORT"))
        let stray = found.subtracting(settings).subtracting(ConfigurationLoader.toolEnvironmentNames).subtracting(cNames)
            .filter { $0 != "AXIOM_PROT" && $0 != "AXIOM_PAYMENT_WEBHOOK_SECRT" }  // this file's typos
            .filter { !$0.hasSuffix("_") }  // a prefix a script matches (AXIOM_RATE_LIMIT_), not a name
        #expect(stray.isEmpty, "AXIOM_ names neither settings nor in toolEnvironmentNames: \(stray.sorted())")
        let readme = try String(contentsOf: root.appendingPathComponent("config/README.md"), encoding: .utf8)
        for name in ConfigurationLoader.toolEnvironmentNames {
            #expect(readme.contains("`\(name)`"), "config/README.md does not list \(name)")
        }
    }

    @Test func theBinaryRefusesAMisspeltVariableWithStatus2() throws {
        let (status, output) = try ServerProcess(arguments: ["--print-config"],
                                                 environment: ["AXIOM_PAYMENT_WEBHOOK_SECRT": "whsec_demo"]).runToExit()
        #expect(status == 2)
        #expect(output.contains("AXIOM_PAYMENT_WEBHOOK_SECRT (did you mean AXIOM_PAYMENT_WEBHOOK_SECRET?)"), "\(output)")
        // Not only --print-config: the server itself does not start (on the
        // old code it did, and listened with the default port).
        let server = ServerProcess(arguments: ["--port", "0"], environment: ["AXIOM_PROT": "80"])
        defer { server.stop() }
        do {
            try server.start()
            Issue.record("the server started with AXIOM_PROT in its environment")
        } catch {
            #expect("\(error)".contains("AXIOM_PROT (did you mean AXIOM_PORT?)"), "\(error)")
            #expect(server.waitForExit(seconds: 10) == 2)
        }
    }

    @Test func configDefaultJSONHoldsEverySettingWithItsDefault() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/default.json").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == ServerOptions().renderJSON())
        // And the file loads as a configuration that changes nothing.
        let loaded = try ConfigurationLoader.load(arguments: ["--config", path, "--print-config"], environment: [:])
        guard case .printConfiguration(let options) = loaded else {
            Issue.record("expected the configuration")
            return
        }
        #expect(options.renderJSON() == ServerOptions().renderJSON())
        let readme = try String(contentsOfFile: path.replacingOccurrences(of: "default.json", with: "README.md"),
                                encoding: .utf8)
        for setting in ServerOptions.settings {
            #expect(readme.contains("| `\(setting.key)` |"), "config/README.md does not describe \(setting.key)")
        }
    }

    @Test func printConfigMasksThePassword() throws {
        let outcome = try ConfigurationLoader.load(arguments: ["--print-config"],
                                                   environment: ["AXIOM_ADMIN_EMAIL": "a@example.com",
                                                                 "AXIOM_ADMIN_PASSWORD": "secret secret"])
        guard case .printConfiguration(let options) = outcome else {
            Issue.record("expected the configuration")
            return
        }
        let text = options.renderJSON()
        #expect(text.contains(#""admin_email": "a@example.com""#))
        #expect(text.contains(#""admin_password": "********""#))
        #expect(!text.contains("secret secret"))
    }

    @Test func databaseAndDatabaseURLTogetherAreRefusedFromAnySource() throws {
        let url = "postgres://axiom:pw@127.0.0.1:5432/axiom"
        let both = "database and database_url are both set: use database for SQLite or database_url for PostgreSQL, not both"
        #expect(refusal(["--database", "/tmp/a.db", "--database-url", url]) == both)
        #expect(refusal(environment: ["AXIOM_DATABASE": "/tmp/a.db", "AXIOM_DATABASE_URL": url]) == both)
        #expect(refusal(["--config", "/config.json", "--database-url", url], file: #"{"database": "/tmp/a.db"}"#) == both)
        // One of them alone is fine; database keeps its default beside a URL.
        let options = try load(environment: ["AXIOM_DATABASE_URL": url])
        #expect(options.databaseURL == url)
        #expect(options.databasePath == "./data/axiom.db")
        #expect(refusal(["--database-url", "mysql://x@y/z"]) == "database_url must be a postgres:// or postgresql:// URL")
    }

    @Test func printedConfigurationMasksTheDatabasePassword() throws {
        let options = try load(["--database-url", "postgres://axiom:hunter22@db:5432/shop"])
        let text = options.renderJSON()
        #expect(text.contains(#""database_url": "postgres://axiom:********@db:5432/shop""#))
        #expect(!text.contains("hunter22"))
    }

    // MARK: The real binary

    @Test func theBinaryRefusesToStartWhenPostgreSQLCannotBeReached() throws {
        // Port 1 on loopback: nothing listens, the connection is refused at once.
        let process = ServerProcess(environment: ["AXIOM_DATABASE_URL": "postgres://axiom@127.0.0.1:1/axiom", "AXIOM_PORT": "0"])
        let (status, output) = try process.runToExit()
        #expect(status == 1)
        #expect(output.contains(#""event":"start_failed""#) && output.contains("cannot connect to PostgreSQL"))
        #expect(output.contains(#""database":"postgres://axiom@127.0.0.1:1/axiom""#))
        #expect(!output.contains(#""event":"listening""#))
    }

    @Test func theBinaryRefusesABadFileWithStatus2NamingTheKey() throws {
        try Self.withConfigFile(#"{"port": 0, "max_body_bytes": -1}"#) { file in
            let (status, output) = try ServerProcess(arguments: ["--config", file.path]).runToExit()
            #expect(status == 2)
            #expect(output.contains("max_body_bytes must be an integer in 0...1073741824; got -1 (config file \(file.path))"))
            #expect(!output.contains(#""event":"listening""#))
        }
    }

    @Test func theBinaryServesWithAFileAndFlagsOverIt() throws {
        try Self.withConfigFile(#"{"port": 1, "log_level": "notice"}"#) { file in
            try ServerProcess.run(arguments: ["--config", file.path, "--port", "0"]) { server, _ in
                #expect(server.port > 1)
                // notice from the file: info lines (storage_opened) are not written.
                #expect(!server.log.contains { $0.contains(#""level":"info""#) })
            }
        }
    }

    /// A file `axiom.json` of `json` in a directory of its own, removed
    /// when `body` ends.
    private static func withConfigFile(_ json: String, _ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("axiom-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("axiom.json")
        try Data(json.utf8).write(to: file)
        try body(file)
    }
}

import Glibc
import HTTPServer
import Presentation

// Entry point: read options, start the service, and turn SIGTERM/SIGINT
// into a graceful shutdown that exits 0.

if CommandLine.arguments.dropFirst().first == HealthCheckCommand.name {
    exit(HealthCheckCommand.run(arguments: Array(CommandLine.arguments.dropFirst(2)),
                                environment: ProcessInfoEnvironment.current()))
}

let options: ServerOptions
let configurationWarnings: [String]
do {
    switch try ConfigurationLoader.load(arguments: Array(CommandLine.arguments.dropFirst()),
                                        environment: ProcessInfoEnvironment.current()) {
    case .help:
        print(ServerOptions.usage, terminator: "")
        exit(0)
    case .printConfiguration(let parsed):
        print(parsed.renderJSON(), terminator: "")
        exit(0)
    case .run(let parsed, let warnings):
        options = parsed
        configurationWarnings = warnings
    }
} catch {
    FileHandleStandardError.write("axiom-server: configuration refused: \(error)\n")
    exit(2)
}

// One output for every log line; access lines are batched (LogOutput).
let logOutput = LogOutput()
let logger = ServerLogger(minimumLevel: options.logLevel, sink: logOutput.immediate)
logger.log(.notice, "starting", [("service", DiscoveryRoutes.serviceName), ("version", DiscoveryRoutes.version),
                                 ("database", options.databaseURL.map(ServerOptions.maskingPassword) ?? options.databasePath),
                                 ("log_level", options.logLevel.name)],
           numbers: [("pid", Int(getpid()))])
for warning in configurationWarnings {
    logger.log(.warning, "configuration_warning", [("detail", warning)])
}
let descriptorLimit = FileDescriptorLimit.raiseToHardLimit()
if descriptorLimit >= 0 && descriptorLimit < options.maxConnections + 64 {
    logger.log(.warning, "descriptor_limit_below_connection_cap",
               numbers: [("descriptor_limit", descriptorLimit), ("max_connections", options.maxConnections)])
}

let shutdownRequested = ShutdownSignals.stream()
let service: AxiomService
do {
    service = try await AxiomService.start(options: options, logger: logger, accessLog: logOutput)
} catch {
    logger.log(.error, "start_failed", [("error", String(describing: error))])
    exit(1)
}
for await _ in shutdownRequested { break }
await service.shutdown()
exit(0)

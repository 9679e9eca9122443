import Dispatch
import Synchronization

/// What every connection of one server shares: configuration, the router,
/// the logger, request ids and the registry of open connections.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let router: Router
    let logger: ServerLogger
    let observer: ExchangeObserver?
    let requestIDs = RequestIDGenerator()
    let policies: ExchangePolicies
    let connections: ConnectionRegistry
    let statistics = ConnectionStatistics()
    /// Request body bytes buffered across all connections.
    let bodyBudget: Mutex<ByteBudget>
    /// Set once shutdown begins: no new requests on existing connections.
    let isDraining = Atomic<Bool>(false)
    /// Streaming responses (Server-Sent Events) being written now.
    let openStreams = Atomic<Int>(0)

    init(configuration: HTTPServerConfiguration, router: Router, logger: ServerLogger, observer: ExchangeObserver?) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.observer = observer
        policies = ExchangePolicies(configuration: configuration)
        connections = ConnectionRegistry(maxConnections: configuration.maxConnections,
                                         perAddress: AddressConnectionTable(limit: configuration.maxConnectionsPerAddress,
                                                                            exempt: configuration.trustedProxies))
        bodyBudget = Mutex(ByteBudget(limit: configuration.maxBufferedBodyBytes))
    }
}

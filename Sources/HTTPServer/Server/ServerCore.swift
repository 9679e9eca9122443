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
    let connections = ConnectionRegistry()
    /// Set once shutdown begins: no new requests on existing connections.
    let isDraining = Atomic<Bool>(false)

    init(configuration: HTTPServerConfiguration, router: Router, logger: ServerLogger, observer: ExchangeObserver?) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.observer = observer
    }
}

/// The open connections, for the timeout sweeper, the connection cap and
/// shutdown. Touched on accept and close only, never per request.
final class ConnectionRegistry: Sendable {
    private let connections = Mutex<[ObjectIdentifier: HTTPConnection]>([:])

    var count: Int { connections.withLock { $0.count } }

    func insert(_ connection: HTTPConnection) {
        connections.withLock { $0[ObjectIdentifier(connection)] = connection }
    }

    func remove(_ connection: HTTPConnection) {
        _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    func snapshot() -> [HTTPConnection] {
        connections.withLock { Array($0.values) }
    }
}

import Dispatch

/// HTTP/1.1 to other servers (webhook endpoints), as a capability.
///
/// Each request takes a kept-alive connection to its origin or opens one;
/// connections are never shared by two requests at once, so any number of
/// sends run side by side. A response that lets the connection stay open
/// puts it back for the next request (at most `maxIdlePerOrigin` per
/// origin, closed after `idleTimeout` unused). A request on a kept
/// connection that fails before any byte of an answer (the server closed
/// it while it was idle) is sent once more on a new connection.
///
/// No redirect is followed: a 3xx is an answer like any other. The address
/// policy is applied to every resolved address at every connect, so a name
/// re-pointed at a private address after it was checked is still refused
/// (DNS rebinding). `timeout` bounds the whole request.
///
/// Every blocking step runs on a connection's own Dispatch queue (see
/// `OutboundConnection`), never on the concurrency pool.
public final class OutboundHTTP: Sendable {
    public let settings: OutboundHTTPSettings
    let tls: TLSClientContext
    let idle: IdleConnections

    /// Loads the CA store (or `caFile`): a missing or bad file throws here,
    /// at start-up, not at the first request.
    public init(settings: OutboundHTTPSettings) throws {
        self.settings = settings
        tls = try TLSClientContext(caFile: settings.caFile)
        idle = IdleConnections(idleTimeout: settings.idleTimeout, maxPerOrigin: max(0, settings.maxIdlePerOrigin))
    }

    deinit { idle.closeAll() }

    /// Sends `request` and reads its response, whatever its status.
    public func send(_ request: OutboundHTTPRequest) async throws(OutboundHTTPError) -> OutboundHTTPResponse {
        let deadline = ContinuousClock.now.advanced(by: settings.timeout)
        let exchange = Exchange(bytes: try request.encoded(), origin: Origin(request.url),
                                respondingToHead: request.method == "HEAD", deadline: deadline)
        if let kept = idle.take(exchange.origin) {
            do throws(ExchangeFailure) {
                return try await run(exchange, over: kept, reused: true)
            } catch {
                // Dropped by the server while it was idle, before any
                // answer: the request most likely never reached it. Once
                // more, on a new connection.
                guard error.beforeResponse else { throw error.error }
            }
        }
        let connection = try await connect(exchange.origin, by: deadline)
        do throws(ExchangeFailure) {
            return try await run(exchange, over: connection, reused: false)
        } catch {
            throw error.error
        }
    }

    /// Resolves `url`'s host and checks every address against the policy
    /// (an endpoint's creation): `.addressRefused` with the refused
    /// addresses if any is refused, `.unresolvable` if none resolves.
    public func check(_ url: OutboundURL) async throws(OutboundHTTPError) {
        let addresses = try await resolve(url.host, port: url.port,
                                          by: ContinuousClock.now.advanced(by: settings.connectTimeout))
        let refused = addresses.filter { !settings.addressPolicy.admits($0) }
        guard refused.isEmpty else { throw .addressRefused(host: url.host, addresses: refused.map(\.ip)) }
    }

    /// Closes the idle connections; requests in flight finish.
    public func close() {
        idle.closeAll()
    }

    // MARK: Capability

    /// Always true: the CA store loaded at init, and there is no one
    /// server to be down; a target that cannot be reached is that
    /// request's error.
    public var isAvailable: Bool { true }

    public func checkAvailability() async -> Bool { true }

    // MARK: Idle connections

    /// Keeps `connection` for the next request to `origin`; the first idle
    /// connection starts a sweep that closes those left unused.
    func release(_ connection: OutboundConnection, to origin: Origin) {
        guard idle.put(connection, for: origin) else { return }
        let interval = max(settings.idleTimeout / 2, .milliseconds(10))
        Task { [weak self] in
            while true {
                try? await Task.sleep(for: interval)
                guard let self, self.idle.sweep() else { return }
            }
        }
    }

    /// getaddrinfo on a Dispatch thread, waited for until `deadline`.
    private func resolve(_ host: String, port: UInt16, by deadline: ContinuousClock.Instant)
        async throws(OutboundHTTPError) -> [PeerAddress] {
        try await DeadlineRace.run(by: deadline, timedOut: .timedOut("resolving \(host)")) { () throws(OutboundHTTPError) in
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[PeerAddress], NetError>, Never>) in
                DispatchQueue.global().async {
                    continuation.resume(returning: Result { () throws(NetError) in try HostResolver.resolve(host, port: port) })
                }
            }
            do throws(NetError) { return try result.get() } catch { throw .unresolvable(host: host) }
        }
    }
}

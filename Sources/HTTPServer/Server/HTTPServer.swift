import CSystemShims
import Dispatch
import Glibc
import Synchronization

/// The HTTP/1.1 server: accepts connections on a listening socket and serves
/// each with the router's handlers. Knows nothing of the application.
///
///     var router = Router()
///     router.get("/health") { _ in .json(.ok, #"{"status":"ok"}"#) }
///     let server = HTTPServer(configuration: .init(port: 0), router: router)
///     let port = try server.start()
///     ...
///     await server.shutdown()
public final class HTTPServer: Sendable {
    private let core: ServerCore
    private let acceptQueue = DispatchQueue(label: "axiom.accept")
    private let state = Mutex<State>(State())

    private struct State: @unchecked Sendable {
        var listener: ListeningSocket?
        var acceptSource: DispatchSourceRead?
        var acceptSuspended = false
        var loops: [EventLoop] = []
        /// The loop the next connection goes to (round robin).
        var nextLoop = 0
    }

    /// `observer`, when given, is told of every completed exchange (access
    /// logs, request metrics).
    public init(configuration: HTTPServerConfiguration, router: Router, logger: ServerLogger = ServerLogger(),
                observer: ExchangeObserver? = nil) {
        core = ServerCore(configuration: configuration, router: router, logger: logger, observer: observer)
    }

    /// Event loops serving connections (0 before `start` and after `shutdown`).
    public var eventLoopCount: Int { state.withLock { $0.loops.count } }

    /// Open connections, including ones being refused at the cap.
    public var openConnections: Int { core.connections.count }

    /// Streaming responses (the `/events` streams) being written now.
    public var openStreams: Int { core.openStreams.load(ordering: .relaxed) }

    /// Connections refused or reclaimed so far, and body-budget refusals.
    public var statistics: ConnectionStatistics.Snapshot { core.statistics.snapshot }

    /// The per-client rate limit's buckets and counts, when configured.
    public var rateLimiter: RateLimiter? { core.policies.rateLimiter }

    /// Request body bytes buffered now, across all connections.
    public var bufferedBodyBytes: Int { core.bodyBudget.withLock { $0.reserved } }

    /// Binds, listens and starts accepting. Returns the bound port (useful
    /// with port 0).
    @discardableResult
    public func start() throws -> Int {
        // A peer that resets while we write must not kill the process.
        signal(SIGPIPE, SIG_IGN)
        // Request bodies are single allocations of their declared length
        // (up to max_body_bytes). glibc's default raises its mmap threshold
        // to the largest block freed, so bodies would come from the heap
        // and stay resident once released. A fixed threshold maps every
        // block of 128 KiB or more on its own (only touched pages are
        // resident) and returns it on free (docs/http-engine.md, "Figures
        // behind the code").
        _ = axiom_set_mmap_threshold(128 * 1024)
        let configuration = core.configuration
        // The loops first: one that fails to open gives its descriptors
        // back (EventLoop.deinit), while the listener is a plain descriptor.
        var loops: [EventLoop] = []
        for index in 0..<configuration.resolvedEventLoops {
            loops.append(try EventLoop(index: index, rateLimiter: core.policies.rateLimiter))
        }
        let listener = try ListeningSocket(host: configuration.host, port: configuration.port,
                                           backlog: configuration.backlog)
        for loop in loops { loop.start() }
        let source = DispatchSource.makeReadSource(fileDescriptor: listener.fd, queue: acceptQueue)
        source.setEventHandler { [self] in acceptPending(listener) }
        source.setCancelHandler { close(listener.fd) }
        state.withLock {
            $0.listener = listener
            $0.acceptSource = source
            $0.loops = loops
        }
        source.resume()
        core.logger.log(.notice, "listening", [("host", configuration.host)],
                        numbers: [("port", listener.port), ("event_loops", loops.count),
                                  ("usable_cpus", UsableCPUs.current.count)])
        return listener.port
    }

    /// Accepts until the backlog is empty (one wake-up, many connections)
    /// and deals the connections out to the loops in turn. One acceptor
    /// rather than an SO_REUSEPORT listener per loop: admission (the caps,
    /// reclaiming) stays in one place, and accepting is a small share of a
    /// keep-alive server's work.
    private func acceptPending(_ listener: ListeningSocket) {
        while true {
            switch listener.acceptOne() {
            case .accepted(let fd, let peer):
                let host = AddressConnectionTable.host(ofPeer: peer)
                var rejected = false
                switch core.connections.admit(from: host) {
                case .admitted:
                    break
                case .admittedReclaiming(let victims):
                    core.statistics.reclaimed.add(victims.count, ordering: .relaxed)
                    for victim in victims { victim.reclaim() }
                case .overCapacity:
                    core.statistics.refusedOverCapacity.add(1, ordering: .relaxed)
                    rejected = true
                case .overAddressLimit:
                    core.statistics.refusedOverAddressLimit.add(1, ordering: .relaxed)
                    AddressRefusal.answer(fd: fd, core: core)
                    continue
                }
                let loop = state.withLock { state -> EventLoop in
                    state.nextLoop = (state.nextLoop + 1) % state.loops.count
                    return state.loops[state.nextLoop]
                }
                let connection = HTTPConnection(fd: fd, remoteAddress: peer, peerHost: host, core: core, loop: loop,
                                                rejected: rejected)
                core.connections.insert(connection)
                loop.execute { connection.start() }
            case .drained:
                return
            case .skipped:
                continue
            case .exhausted(let code):
                // Out of descriptors: the socket stays readable, so pause
                // accepting briefly instead of spinning on the error.
                core.logger.log(.warning, "accept_exhausted", [("error", String(cString: strerror(code)))])
                pauseAccepting(for: .milliseconds(100))
                return
            }
        }
    }

    private func pauseAccepting(for interval: DispatchTimeInterval) {
        let source = state.withLock { state -> DispatchSourceRead? in
            guard !state.acceptSuspended, let source = state.acceptSource else { return nil }
            state.acceptSuspended = true
            return source
        }
        guard let source else { return }
        source.suspend()
        acceptQueue.asyncAfter(deadline: .now() + interval) { [self] in
            let source = state.withLock { state -> DispatchSourceRead? in
                guard state.acceptSuspended, let source = state.acceptSource else { return nil }
                state.acceptSuspended = false
                return source
            }
            source?.resume()
        }
    }

    /// Graceful shutdown: stop accepting, let in-flight requests finish (up
    /// to the configured deadline), close idle connections, then close
    /// whatever is left.
    public func shutdown() async {
        let (source, suspended) = state.withLock { state in
            defer {
                state.acceptSource = nil
                state.acceptSuspended = false
            }
            return (state.acceptSource, state.acceptSuspended)
        }
        core.isDraining.store(true, ordering: .relaxed)
        if let source {
            if suspended { source.resume() }
            source.cancel()
        }
        let open = core.connections.snapshot()
        core.logger.log(.notice, "shutdown_started", numbers: [("open_connections", open.count)])
        for connection in open { connection.beginDrain() }

        let deadline = MonotonicClock.nowNanoseconds() + core.configuration.shutdownDeadline.nanoseconds
        while core.connections.count > 0 && MonotonicClock.nowNanoseconds() < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let remaining = core.connections.snapshot()
        for connection in remaining {
            connection.loop.execute { connection.close() }
        }
        while core.connections.count > 0 {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let loops = state.withLock { state in
            defer { state.loops = [] }
            return state.loops
        }
        for loop in loops { loop.stop() }
        core.logger.log(.notice, "shutdown_complete", numbers: [("forced_closed", remaining.count)])
    }
}

import Glibc
import Synchronization

/// One client connection: the driver of a `ConnectionStateMachine`. It reads
/// and parses, hands each request to its route's handler, writes the
/// responses, and does what the state machine decides (when to parse, when
/// to read, what a timer means, when to linger and close). Everything
/// mutable is confined to its event loop's thread: readiness is reported
/// there and handlers' tasks run there (the loop is their task executor),
/// which is what makes the `@unchecked Sendable` honest.
final class HTTPConnection: @unchecked Sendable {
    let fd: Int32
    let remoteAddress: String
    /// The address part of `remoteAddress`, for the per-address cap.
    let peerHost: String
    let loop: EventLoop
    let core: ServerCore
    /// Reading is paused (backpressure, or EOF seen). The socket is
    /// edge-triggered, so resuming reads what arrived meanwhile at once.
    private var readPaused = false
    /// The peer's EOF is pending behind the bytes not yet read: a short
    /// read does not mean the end, since no further edge will come.
    private var hangUpPending = false

    var machine: ConnectionStateMachine
    let input: InputBuffer
    var parser: RequestParser
    var output = OutputQueue()

    /// The request whose body is being read, and what to do with it.
    var pending: RequestAdmission.PendingRequest?
    var processing = false
    /// Queued on the loop to flush when its batch ends.
    var flushAwaitsBatchEnd = false
    /// The output fell below the watermark while parsing: parse again.
    private var parseAgain = false
    var streamTask: Task<Void, Never>?
    /// The exchange being answered, kept only when the server has an
    /// observer to report it to.
    var exchange: ExchangeInProgress?
    var drainWaiters: [CheckedContinuation<Void, any Error>] = []
    /// Bytes this connection holds of the server's body budget.
    var bodyReservation = 0

    /// The state machine's `quietSince`, published for the accept loop,
    /// which reclaims the connections quiet the longest when the server is
    /// full (it claims one by clearing this). A slow sender (a byte every
    /// 5 s) is quiet for seconds, a real upload for milliseconds.
    let quietSince = Atomic<Int64>(0)
    /// The value last published, so a claim is not overwritten by the same
    /// mark again.
    private var publishedQuietSince: Int64 = 0
    /// True while this connection answered 503 at the connection cap.
    let isRejected: Bool

    init(fd: Int32, remoteAddress: String, peerHost: String, core: ServerCore, loop: EventLoop, rejected: Bool = false) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.peerHost = peerHost
        self.core = core
        self.isRejected = rejected
        self.loop = loop
        input = InputBuffer(capacity: 4096)
        parser = RequestParser(limits: core.configuration.limits)
        let configuration = core.configuration
        machine = ConnectionStateMachine(
            timeouts: .init(header: configuration.headerTimeout, idle: configuration.idleTimeout,
                            write: configuration.writeTimeout, bodyProgress: configuration.bodyProgress),
            now: MonotonicClock.nowNanoseconds(), refusing: rejected)
        // Idle from the start (nothing sent yet), before the accept loop
        // can next look for a connection to reclaim.
        publish()
    }

    // MARK: Lifecycle

    /// Runs on the loop: watches the socket and, at the cap, answers 503.
    func start() {
        loop.register(self)
        if isRejected {
                let error = HTTPError(.serviceUnavailable, code: "too_many_connections",
                                      detail: "The server is at its connection limit; retry shortly.",
                                      headers: ["Retry-After": "1"])
                let requestID = core.requestIDs.id(from: nil)
                writeFinal(ProblemDetails.response(for: error, requestID: requestID),
                           version: .http1_1, requestID: requestID, keepAlive: false)
        }
        publish()
    }

    /// Shutdown: idle connections close now; busy ones after their response.
    func beginDrain() {
        loop.execute { [self] in perform(machine.shutdown()) }
    }

    /// Closes the connection if it is still quiet: the server is full and a
    /// new connection takes its place. One whose request is being answered
    /// by now, or that still has response bytes to write, stays (the cap is
    /// exceeded by one until it ends). A request still arriving is dropped
    /// without an answer, as a timeout would have done a little later.
    func reclaim() {
        loop.execute { [self] in perform(machine.reclaim(outputEmpty: output.isEmpty)) }
    }

    /// Called by the loop's timer when the machine's deadline has passed.
    func timerFired(now: Int64) {
        perform(machine.timerFired(now: now))
    }

    /// The loop saw the socket readable (or its EOF, or an error).
    func readable(hungUp: Bool = false) {
        if hungUp { hangUpPending = true }
        if !readPaused { readAvailable() }
    }

    /// The loop saw the socket writable again after a write met EAGAIN.
    func writable() {
        if !output.isEmpty { flush() }
    }

    /// Carries out an action of the state machine, then publishes its
    /// outputs.
    func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .none:
            break
        case .parse:
            processInput()
        case .discardInput:
            input.removeAll()
        case .linger:
            // Stop sending, then drain and drop whatever the client still
            // sends until its EOF or the linger deadline.
            shutdown(fd, Int32(SHUT_WR))
            input.removeAll()
        case .cancelStream:
            streamTask?.cancel()
        case .answerTimeout(let detail):
            abandonRequest()
            let error = HTTPError(.requestTimeout, code: "request_timeout", detail: detail)
            let requestID = core.requestIDs.id(from: nil)
            writeFinal(ProblemDetails.response(for: error, requestID: requestID), version: .http1_1,
                       requestID: requestID, keepAlive: false)
        case .close(let reason):
            switch reason {
            case .writeTimeout: core.logger.log(.info, "connection_write_timeout", [("peer", remoteAddress)])
            case .reclaimed: core.logger.log(.debug, "connection_reclaimed", [("peer", remoteAddress)])
            case .peerClosed, .idleTimeout, .lingerEnded, .shutdown: break
            }
            close()
        }
        publish()
    }

    /// Makes the state machine's outputs visible: the quiet mark to the
    /// acceptor, `wantsInput` to reading.
    func publish() {
        if machine.quietSince != publishedQuietSince {
            publishedQuietSince = machine.quietSince
            quietSince.store(publishedQuietSince, ordering: .relaxed)
        }
        guard machine.phase != .closed else { return }
        if machine.wantsInput, readPaused {
            readPaused = false
            // Edge-triggered: what arrived while paused brought no new edge.
            loop.execute { [self] in readable() }
        } else if !machine.wantsInput {
            readPaused = true
        }
    }

    func close() {
        guard machine.phase != .closed else { return }
        machine.closed()
        publish()
        releaseBodyReservation()
        streamTask?.cancel()
        streamTask = nil
        output.removeAll()
        let waiters = drainWaiters
        drainWaiters = []
        for waiter in waiters { waiter.resume(throwing: HTTPBodyWriter.WriterError.connectionClosed) }
        loop.deregister(fd)
        Glibc.close(fd)
        core.connections.remove(self)
    }

    // MARK: Reading

    func readAvailable() {
        guard machine.phase != .closed else { return }
        var reads = 0
        var endOfInput = false
        var drained = false
        while reads < 4 {
            // At most 16 KiB a read (64 KiB a wake-up): reading whatever
            // space the buffer has would let it double on every read while
            // a client has megabytes queued, and keep that size, beside
            // the body budget.
            let space = input.writableSpace(minimum: 16 * 1024)
            let wanted = min(space.count, 16 * 1024)
            let count = read(fd, space.baseAddress, wanted)
            if count > 0 {
                input.didWrite(count)
                reads += 1
                // A short read emptied the socket: any later byte is a new
                // edge. Not so the EOF reported with these bytes (a client
                // that sent a partial request and closed waited out the
                // header timeout: 2,000 such sockets open in a soak).
                if count < wanted && !hangUpPending {
                    drained = true
                    break
                }
            } else if count == 0 {
                endOfInput = true
                break
            } else {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    drained = true
                    break
                }
                close()
                return
            }
        }
        if !drained && !endOfInput {
            // 64 KiB taken, more waiting: come back after the loop's other
            // work, since edge-triggered readiness will not report it again.
            loop.execute { [self] in readable() }
        }
        let action = machine.inputArrived(peerClosed: endOfInput)
        if action == .parse {
            processInput(readBytes: reads > 0)
        } else {
            perform(action)
        }
    }

    /// Parses and dispatches the buffered requests while the state machine
    /// allows, writes the responses, then tells the machine how far it got.
    /// Responses to pipelined requests read in one go leave together, in
    /// one `sendmsg`, unless they pass the high watermark.
    func processInput(readBytes: Bool = false) {
        guard !processing else {
            parseAgain = true
            return
        }
        processing = true
        repeat {
            parseAgain = false
            parseBuffered()
            flushAfterBatch()
        } while parseAgain && machine.phase != .closed
        processing = false
        perform(machine.inputParsed(readBytes: readBytes, buffered: input.readableCount, outputEmpty: output.isEmpty,
                                    now: MonotonicClock.nowNanoseconds()))
    }

    /// Parses and dispatches requests one at a time: the next is not started
    /// before the previous one's response is queued, which is how pipelined
    /// responses stay in request order. Output over the high watermark is
    /// written at once; if the socket does not take it, the machine stops
    /// the parsing until it does.
    private func parseBuffered() {
        while machine.mayParse {
            let result: (consumed: Int, event: RequestParser.Event?)
            do {
                result = try parser.parse(input.readable)
            } catch {
                input.consume(input.readableCount)
                answerParseError(error)
                break
            }
            input.consume(result.consumed)
            guard let event = result.event else {
                if machine.phase == .idle && (!input.isEmpty || !parser.isAtRequestBoundary) {
                    machine.requestStarted(now: MonotonicClock.nowNanoseconds())
                } else if machine.phase == .body, result.consumed > 0 {
                    bodyArrived(result.consumed)
                }
                break
            }
            switch event {
            case .head(let head):
                machine.headReceived(now: MonotonicClock.nowNanoseconds())
                accept(head)
            case .body(let body, let trailers):
                guard reserveBody(holding: body.count) else {
                    refuseForBudget(version: pending?.head.version ?? .http1_1)
                    break
                }
                guard let request = pending else { break }
                pending = nil
                finish(request, body: body, trailers: trailers)
            }
            if output.pendingBytes > core.configuration.outputHighWatermark { flush() }
        }
    }
}

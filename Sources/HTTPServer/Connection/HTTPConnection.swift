import Dispatch
import Glibc
import Synchronization

/// One client connection: reads and parses requests, hands each to its
/// route's handler, writes the responses in request order, and enforces the
/// limits and timeouts. Everything mutable is confined to `queue`: Dispatch
/// sources fire on it and handlers' tasks run on it (see QueueTaskExecutor),
/// which is what makes the `@unchecked Sendable` honest.
final class HTTPConnection: @unchecked Sendable {
    /// Where a connection is between requests; decides what a timeout means.
    enum Phase {
        /// Between requests (or before the first): the idle timeout applies.
        case idle
        /// Part of a header section has arrived: header timeout → 408.
        case head
        /// The body is being read: body timeout → 408.
        case body
        /// A handler runs or a response streams: no read timeout.
        case responding
        /// Final response written; discarding input until EOF before close,
        /// so unread bytes do not make the kernel reset the connection and
        /// destroy the response in flight (a "lingering close").
        case lingering
        case closed
    }

    let fd: Int32
    let remoteAddress: String
    /// The address part of `remoteAddress`, for the per-address cap.
    let peerHost: String
    let queue: DispatchQueue
    private let executor: QueueTaskExecutor
    private let core: ServerCore
    private let readSource: DispatchSourceRead
    private var writeSource: DispatchSourceWrite?
    private var readSuspended = false
    private var writeSuspended = true
    private var liveSources = 1

    private let input: InputBuffer
    private var parser: RequestParser
    private var output = OutputQueue()

    private(set) var phase = Phase.idle
    /// The request whose body is being read, and what to do with it.
    private var pending: RequestAdmission.PendingRequest?
    private var processing = false
    private var peerClosedInput = false
    /// No further requests will be read; close once output is written.
    private var closeAfterOutput = false
    private var streamTask: Task<Void, Never>?
    /// The exchange being answered, kept only when the server has an
    /// observer to report it to.
    private var exchange: ExchangeInProgress?
    private var drainWaiters: [CheckedContinuation<Void, any Error>] = []

    /// The body being read: when it began, its last progress and how many
    /// bytes (framing included) have arrived, for `BodyProgressRule`.
    private var bodyStartedAt: Int64 = 0
    private var bodyProgressAt: Int64 = 0
    private var bodyReceived = 0
    /// Bytes this connection holds of the server's body budget.
    private var bodyReservation = 0

    /// When the current timeout expires (monotonic ns; 0 = none). Read by
    /// the server's sweeper from another thread, hence atomic.
    let deadline = Atomic<Int64>(0)
    private var writeDeadlineArmed = false
    /// Since when (monotonic ns) the connection has been quiet: idle
    /// (before its first byte, between requests, lingering after its last
    /// response) or, while a request arrives, since its last byte; 0 while
    /// a request is being answered. Read by the accept loop, which reclaims
    /// the connections quiet the longest when the server is full: a slow
    /// sender (a byte every 5 s) is quiet for seconds, a real upload for
    /// milliseconds.
    let quietSince = Atomic<Int64>(0)
    /// True while this connection answered 503 at the connection cap.
    let isRejected: Bool

    init(fd: Int32, remoteAddress: String, peerHost: String, core: ServerCore, rejected: Bool = false) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.peerHost = peerHost
        self.core = core
        self.isRejected = rejected
        queue = DispatchQueue(label: "axiom.connection", target: .global())
        executor = QueueTaskExecutor(queue: queue)
        input = InputBuffer(capacity: 4096)
        parser = RequestParser(limits: core.configuration.limits)
        readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        // Idle from the start (nothing sent yet), before the accept loop
        // can next look for a connection to reclaim.
        if !rejected { markQuiet() }
    }

    // MARK: Lifecycle

    func start() {
        queue.setSpecific(key: ConnectionQueueKey.key, value: ObjectIdentifier(self))
        readSource.setEventHandler { [unowned self] in self.readAvailable() }
        readSource.setCancelHandler { [self] in self.sourceCancelled() }
        queue.async { [self] in
            if isRejected {
                let error = HTTPError(.serviceUnavailable, code: "too_many_connections",
                                      detail: "The server is at its connection limit; retry shortly.",
                                      headers: ["Retry-After": "1"])
                let requestID = core.requestIDs.id(from: nil)
                writeFinal(ProblemDetails.response(for: error, requestID: requestID),
                           version: .http1_1, requestID: requestID, keepAlive: false)
            } else {
                setDeadline(after: core.configuration.headerTimeout)
            }
            readSource.resume()
        }
    }

    /// Shutdown: idle connections close now; busy ones after their response.
    func beginDrain() {
        queue.async { [self] in
            switch phase {
            case .idle:
                close()
            case .responding:
                streamTask?.cancel()
            case .head, .body, .lingering, .closed:
                break
            }
        }
    }

    /// Closes the connection if it is still quiet: the server is full and a
    /// new connection takes its place. One whose request is being answered
    /// by now, or that still has response bytes to write, stays (the cap is
    /// exceeded by one until it ends). A request still arriving is dropped
    /// without an answer, as a timeout would have done a little later.
    func reclaim() {
        queue.async { [self] in
            guard phase == .idle || phase == .head || phase == .body || phase == .lingering, output.isEmpty
            else { return }
            core.logger.log(.debug, "connection_reclaimed", [("peer", remoteAddress)])
            close()
        }
    }

    /// Called by the sweeper when `deadline` may have passed.
    func checkDeadline(now: Int64) {
        queue.async { [self] in
            let due = deadline.load(ordering: .relaxed)
            guard due != 0, now >= due else { return }
            deadline.store(0, ordering: .relaxed)
            if writeDeadlineArmed {
                core.logger.log(.info, "connection_write_timeout", [("peer", remoteAddress)])
                close()
                return
            }
            switch phase {
            case .idle, .lingering:
                close()
            case .head, .body:
                var detail = "The header section did not arrive in time."
                if phase == .body {
                    let rule = core.configuration.bodyProgress
                    guard let shortfall = rule.shortfall(startedAt: bodyStartedAt, lastProgressAt: bodyProgressAt,
                                                         received: bodyReceived, now: now) else {
                        setBodyDeadline()
                        return
                    }
                    detail = rule.detail(shortfall)
                }
                abandonRequest()
                let error = HTTPError(.requestTimeout, code: "request_timeout", detail: detail)
                let requestID = core.requestIDs.id(from: nil)
                writeFinal(ProblemDetails.response(for: error, requestID: requestID), version: .http1_1,
                           requestID: requestID, keepAlive: false)
            case .responding, .closed:
                break
            }
        }
    }

    func close() {
        guard phase != .closed else { return }
        phase = .closed
        deadline.store(0, ordering: .relaxed)
        quietSince.store(0, ordering: .relaxed)
        releaseBodyReservation()
        streamTask?.cancel()
        streamTask = nil
        output.removeAll()
        let waiters = drainWaiters
        drainWaiters = []
        for waiter in waiters { waiter.resume(throwing: HTTPBodyWriter.WriterError.connectionClosed) }
        if readSuspended {
            readSuspended = false
            readSource.resume()
        }
        readSource.cancel()
        if let writeSource {
            if writeSuspended {
                writeSuspended = false
                writeSource.resume()
            }
            writeSource.cancel()
        }
        core.connections.remove(self)
    }

    private func sourceCancelled() {
        liveSources -= 1
        if liveSources == 0 { Glibc.close(fd) }
    }

    // MARK: Reading

    private func readAvailable() {
        guard phase != .closed else { return }
        var reads = 0
        while reads < 4 {
            // At most 16 KiB a read (64 KiB a wake-up): reading whatever
            // space the buffer had let it double on every read while a
            // client had megabytes queued, and keep that size; 1,000
            // half-sent 1 MB bodies held about 800 MB of input buffers
            // beside the 256 MiB body budget.
            let space = input.writableSpace(minimum: 16 * 1024)
            let wanted = min(space.count, 16 * 1024)
            let count = read(fd, space.baseAddress, wanted)
            if count > 0 {
                input.didWrite(count)
                reads += 1
                if count < wanted { break }
            } else if count == 0 {
                peerClosedInput = true
                break
            } else {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                close()
                return
            }
        }
        if phase == .lingering {
            input.removeAll()
            if peerClosedInput { close() }
            return
        }
        processInput()
        if reads > 0, phase == .head || phase == .body { markQuiet() }
        if peerClosedInput {
            // Nothing more will arrive: stop watching the descriptor. A
            // request already being answered still gets its response.
            suspendReading()
            if phase == .idle || phase == .head || phase == .body { close() }
        } else if phase == .responding && input.readableCount >= 64 * 1024 {
            suspendReading()  // pipelined requests pile up; resume when answered
        }
    }

    private func suspendReading() {
        guard !readSuspended, phase != .closed else { return }
        readSuspended = true
        readSource.suspend()
    }

    private func resumeReading() {
        guard readSuspended, !peerClosedInput, phase != .closed else { return }
        readSuspended = false
        readSource.resume()
    }

    /// Parses and dispatches requests from the buffered bytes, one at a time:
    /// the next is not started before the previous one's response is queued,
    /// which is how pipelined responses stay in request order.
    private func processInput() {
        guard !processing else { return }
        processing = true
        defer { processing = false }
        while phase != .closed && phase != .responding && phase != .lingering && !closeAfterOutput {
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
                if phase == .idle && (!input.isEmpty || !parser.isAtRequestBoundary) {
                    phase = .head
                    setDeadline(after: core.configuration.headerTimeout)
                } else if phase == .body, result.consumed > 0 {
                    bodyArrived(result.consumed)
                }
                break
            }
            switch event {
            case .head(let head):
                phase = .body
                bodyStartedAt = MonotonicClock.nowNanoseconds()
                bodyProgressAt = bodyStartedAt
                bodyReceived = 0
                setBodyDeadline()
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
        }
        flush()
    }

    // MARK: Request bodies

    /// `count` more body bytes (framing included) were consumed: what the
    /// parser now buffers is reserved, and the progress deadline moves.
    private func bodyArrived(_ count: Int) {
        bodyReceived += count
        bodyProgressAt = MonotonicClock.nowNanoseconds()
        guard reserveBody(holding: parser.bufferedBodyBytes) else {
            refuseForBudget(version: pending?.head.version ?? .http1_1)
            return
        }
        setBodyDeadline()
    }

    /// Reserves the body bytes held beyond those already reserved. Bytes
    /// are reserved as they arrive, not as declared: reserving each
    /// declared Content-Length let 256 heads of 1 MB bodies, with a byte
    /// each, take the whole 256 MiB budget.
    private func reserveBody(holding total: Int) -> Bool {
        let more = total - bodyReservation
        guard more > 0 else { return true }
        guard core.bodyBudget.withLock({ $0.reserve(more) }) else { return false }
        bodyReservation = total
        return true
    }

    private func setBodyDeadline() {
        let due = core.configuration.bodyProgress.deadline(startedAt: bodyStartedAt, lastProgressAt: bodyProgressAt,
                                                           received: bodyReceived)
        deadline.store(due, ordering: .relaxed)
    }

    /// Whether a declared Content-Length fits what the budget has left
    /// now: a body that cannot fit is refused before any of it is read
    /// (and before `100 Continue`).
    private func declaredBodyFits(_ head: RequestHead) -> Bool {
        guard case .length(let length) = head.framing else { return true }
        return core.bodyBudget.withLock { length <= $0.available }
    }

    /// 503 with Retry-After and close: the body does not fit the budget.
    /// The body is not read, so the connection cannot be reused.
    private func refuseForBudget(version: HTTPVersion) {
        core.statistics.refusedOverBodyBudget.add(1, ordering: .relaxed)
        let requestID = pending?.requestID ?? core.requestIDs.id(from: nil)
        abandonRequest()
        let error = HTTPError(.serviceUnavailable, code: "body_buffer_full",
                              detail: "The server is buffering too many request bodies; retry shortly.",
                              headers: ["Retry-After": "1"])
        writeFinal(ProblemDetails.response(for: error, requestID: requestID), version: version,
                   requestID: requestID, keepAlive: false)
    }

    /// Drops the request being read and everything buffered for it.
    private func abandonRequest() {
        pending = nil
        input.removeAll()
        parser = RequestParser(limits: core.configuration.limits)
        releaseBodyReservation()
    }

    private func releaseBodyReservation() {
        guard bodyReservation > 0 else { return }
        let count = bodyReservation
        bodyReservation = 0
        core.bodyBudget.withLock { $0.release(count) }
    }

    // MARK: Requests

    private func accept(_ head: RequestHead) {
        let requestID = core.requestIDs.id(from: head.headers["x-request-id"])
        let action = RequestAdmission.decide(head, router: core.router, requestID: requestID)
        pending = RequestAdmission.PendingRequest(head: head, requestID: requestID, action: action)
        if core.observer != nil {
            var route = ""
            if case .dispatch(let matched, _, _) = action { route = matched.pattern }
            exchange = ExchangeInProgress(method: head.method, route: route, headers: head.headers,
                                          requestID: requestID, startedAt: MonotonicClock.nowNanoseconds())
        }
        guard declaredBodyFits(head) else {
            refuseForBudget(version: head.version)
            return
        }
        guard head.expectation == .continue100, head.framing != .none else { return }
        switch action {
        case .dispatch(let route, _, _) where route.readsBody:
            output.append(ResponseHead.continue100)
            flush()
        case .dispatch, .answer:
            // RFC 9110 10.1.1: answer with the final status instead of 100 and
            // do not read the body; the connection cannot be reused after that.
            pending = nil
            closeAfterOutput = true
            switch action {
            case .dispatch(let route, let parameters, let target):
                dispatch(route, parameters: parameters, target: target, head: head, requestID: requestID,
                         body: [], trailers: HTTPFields(), keepAlive: false)
            case .answer(let response):
                writeFinal(response, version: head.version, requestID: requestID, keepAlive: false,
                           isHead: head.method == .head)
            }
        }
    }

    private func finish(_ request: RequestAdmission.PendingRequest, body: [UInt8], trailers: HTTPFields) {
        let keepAlive = request.head.keepAlive
        switch request.action {
        case .dispatch(let route, let parameters, let target):
            dispatch(route, parameters: parameters, target: target, head: request.head, requestID: request.requestID,
                     body: body, trailers: trailers, keepAlive: keepAlive)
        case .answer(let response):
            // A request the server itself found malformed ends the connection (400 → close).
            writeFinal(response, version: request.head.version, requestID: request.requestID,
                       keepAlive: keepAlive && response.status != .badRequest, isHead: request.head.method == .head)
        }
    }

    private func answerParseError(_ error: HTTPParseError) {
        pending = nil
        let requestID = core.requestIDs.id(from: nil)
        let response = ProblemDetails.response(for: HTTPError(error.status, code: error.code, detail: error.detail),
                                               requestID: requestID)
        writeFinal(response, version: .http1_1, requestID: requestID, keepAlive: false)
    }

    private func dispatch(_ route: Router.Route, parameters: [String: String], target: RequestTarget, head: RequestHead,
                          requestID: String, body: [UInt8], trailers: HTTPFields, keepAlive: Bool) {
        var request = HTTPRequest(method: head.method, target: head.target, version: head.version, headers: head.headers,
                                  path: target.path, pathSegments: target.segments, query: QueryParameters(target.query),
                                  body: body, trailers: trailers, remoteAddress: remoteAddress, id: requestID)
        request.route = route.pattern
        request.parameters = parameters
        phase = .responding
        deadline.store(0, ordering: .relaxed)
        quietSince.store(0, ordering: .relaxed)
        let handler = route.handler
        let logger = core.logger
        Task.immediate(executorPreference: executor) { [self] in
            let response: HTTPResponse
            do {
                response = try await handler(request)
            } catch let error as HTTPError {
                response = ProblemDetails.response(for: error, requestID: requestID)
            } catch {
                logger.log(.error, "handler_failed", [("request_id", requestID), ("method", request.method.rawValue),
                                                      ("route", request.route), ("error", String(describing: error))])
                response = ProblemDetails.response(
                    for: HTTPError(.internalServerError, code: "internal_error",
                                   detail: "The server failed to handle this request."), requestID: requestID)
            }
            onQueue { self.respond(response, to: head, requestID: requestID, keepAlive: keepAlive) }
        }
    }

    /// Runs `body` on the connection's queue: inline when already there
    /// (the common case, thanks to the task executor), else enqueued.
    private func onQueue(_ body: @escaping @Sendable () -> Void) {
        if DispatchQueue.getSpecific(key: ConnectionQueueKey.key) == ObjectIdentifier(self) {
            body()
        } else {
            queue.async(execute: body)
        }
    }

    /// Runs `body` on the connection's queue and returns its result, for
    /// callers (a body writer) that may be elsewhere.
    func performOnQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        if DispatchQueue.getSpecific(key: ConnectionQueueKey.key) == ObjectIdentifier(self) {
            return try body()
        }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    // MARK: Responses

    private func respond(_ response: HTTPResponse, to head: RequestHead, requestID: String, keepAlive: Bool) {
        guard phase != .closed else { return }
        let keepAlive = keepAlive && !closeAfterOutput && !core.isDraining.load(ordering: .relaxed)
        if case .stream(let produce) = response.body, head.method != .head, !response.status.forbidsContent {
            let chunked = head.version == .http1_1
            output.append(ResponseHead.serialize(status: response.status, headers: response.headers,
                                                 framing: chunked ? .chunked : .closeDelimited,
                                                 keepAlive: keepAlive && chunked, echoKeepAlive: false,
                                                 requestID: requestID))
            if !(keepAlive && chunked) { closeAfterOutput = true }
            exchange?.status = response.status
            flush()
            let writer = HTTPBodyWriter(connection: self, chunked: chunked)
            let logger = core.logger
            streamTask = Task.immediate(executorPreference: executor) { [self] in
                do {
                    try await produce(writer)
                } catch is HTTPBodyWriter.WriterError {
                    // The client went away; nothing to report.
                } catch {
                    logger.log(.warning, "stream_failed", [("request_id", requestID), ("error", String(describing: error))])
                }
                onQueue { self.endStream(chunked: chunked) }
            }
            return
        }
        writeFinal(response, version: head.version, requestID: requestID, keepAlive: keepAlive,
                   isHead: head.method == .head)
    }

    /// Queues a complete response, then moves on to the next request (or to
    /// closing).
    private func writeFinal(_ response: HTTPResponse, version: HTTPVersion, requestID: String, keepAlive: Bool,
                            isHead: Bool = false) {
        guard phase != .closed else { return }
        ResponseHead.encodeComplete(response, version: version, requestID: requestID, keepAlive: keepAlive,
                                    isHead: isHead, into: &output)
        if !keepAlive { closeAfterOutput = true }
        if let observer = core.observer {
            var finished = exchange ?? ExchangeInProgress(method: nil, route: "", headers: HTTPFields(),
                                                          requestID: requestID, startedAt: MonotonicClock.nowNanoseconds())
            finished.status = response.status
            if !isHead, !response.status.forbidsContent, case .bytes(let body) = response.body {
                finished.bodyBytes = body.count
            }
            report(finished, to: observer)
        }
        completeResponse()
    }

    private func endStream(chunked: Bool) {
        streamTask = nil
        if let observer = core.observer, let finished = exchange { report(finished, to: observer) }
        guard phase != .closed else { return }
        if chunked { output.append(HTTPBodyWriter.lastChunk) }
        completeResponse()
    }

    private func completeResponse() {
        // A response that began before shutdown (a stream, typically) ends
        // the connection when shutdown has begun since: the drain closed
        // the idle connections once and will not come back for this one.
        if core.isDraining.load(ordering: .relaxed) { closeAfterOutput = true }
        releaseBodyReservation()
        if closeAfterOutput {
            phase = .lingering
            pending = nil
        } else {
            phase = .idle
            setDeadline(after: core.configuration.idleTimeout)
            input.shrinkIfEmpty()
        }
        markQuiet()
        flush()
        if phase == .idle {
            resumeReading()
            if !processing && !input.isEmpty { processInput() }
            if peerClosedInput && phase == .idle { close() }
        }
    }

    private func report(_ finished: ExchangeInProgress, to observer: ExchangeObserver) {
        exchange = nil
        observer(CompletedExchange(method: finished.method, route: finished.route, status: finished.status,
                                   bodyBytes: finished.bodyBytes,
                                   durationNanoseconds: MonotonicClock.nowNanoseconds() - finished.startedAt,
                                   requestID: finished.requestID, requestHeaders: finished.headers,
                                   remoteAddress: remoteAddress))
    }

    // MARK: Writing

    /// Appends one chunk of a streamed body; returns whether the writer
    /// should wait for the socket to drain (backpressure).
    func writeChunk(_ bytes: [UInt8], chunked: Bool) throws(HTTPBodyWriter.WriterError) -> Bool {
        guard phase != .closed else { throw .connectionClosed }
        guard !bytes.isEmpty else { return false }
        exchange?.bodyBytes += bytes.count
        if chunked {
            output.append(Array("\(String(bytes.count, radix: 16))\r\n".utf8))
            output.append(bytes)
            output.append(HTTPBodyWriter.chunkEnd)
        } else {
            output.append(bytes)
        }
        flush()
        return output.pendingBytes > core.configuration.outputHighWatermark
    }

    func waitForDrain(_ continuation: CheckedContinuation<Void, any Error>) {
        if phase == .closed {
            continuation.resume(throwing: HTTPBodyWriter.WriterError.connectionClosed)
        } else if output.pendingBytes <= core.configuration.outputHighWatermark {
            continuation.resume()
        } else {
            drainWaiters.append(continuation)
        }
    }

    private func flush() {
        guard phase != .closed else { return }
        if !output.isEmpty {
            switch output.flush(to: fd) {
            case .flushed:
                break
            case .wouldBlock:
                armWriteSource()
                return
            case .failed:
                close()
                return
            }
        }
        disarmWriteSource()
        if !drainWaiters.isEmpty {
            let waiters = drainWaiters
            drainWaiters = []
            for waiter in waiters { waiter.resume() }
        }
        if phase == .lingering {
            lingeringClose()
        }
    }

    private func armWriteSource() {
        if !writeDeadlineArmed {
            writeDeadlineArmed = true
            setDeadline(after: core.configuration.writeTimeout)
        }
        if output.pendingBytes > core.configuration.outputHighWatermark { suspendReading() }
        if writeSource == nil {
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [unowned self] in self.flush() }
            source.setCancelHandler { [self] in self.sourceCancelled() }
            liveSources += 1
            writeSource = source
        }
        if writeSuspended {
            writeSuspended = false
            writeSource?.resume()
        }
    }

    private func disarmWriteSource() {
        if writeDeadlineArmed {
            writeDeadlineArmed = false
            switch phase {
            case .idle: setDeadline(after: core.configuration.idleTimeout)
            case .responding: deadline.store(0, ordering: .relaxed)
            default: break
            }
        }
        if let writeSource, !writeSuspended {
            writeSuspended = true
            writeSource.suspend()
            if phase == .responding || phase == .idle { resumeReading() }
        }
    }

    /// Everything is written and the connection is done: stop sending, then
    /// drain and drop whatever the client still sends, for a short while.
    private func lingeringClose() {
        if peerClosedInput {
            close()
            return
        }
        shutdown(fd, Int32(SHUT_WR))
        input.removeAll()
        setDeadline(after: .seconds(2))
        resumeReading()
    }

    private func markQuiet() {
        quietSince.store(MonotonicClock.nowNanoseconds(), ordering: .relaxed)
    }

    private func setDeadline(after duration: Duration) {
        deadline.store(MonotonicClock.nowNanoseconds() + duration.nanoseconds, ordering: .relaxed)
    }
}

/// What is known of an exchange while it is being answered.
private struct ExchangeInProgress {
    let method: HTTPMethod?
    let route: String
    let headers: HTTPFields
    let requestID: String
    let startedAt: Int64
    var status = HTTPStatus.ok
    var bodyBytes = 0
}

/// Marks a connection's queue so code can tell whether it already runs there.
enum ConnectionQueueKey {
    static let key = DispatchSpecificKey<ObjectIdentifier>()
}

import Synchronization

/// Responses: queuing them in request order, streamed bodies, and writing
/// the output with backpressure.
extension HTTPConnection {
    /// Runs `body` on the connection's loop: inline when already there
    /// (the common case, thanks to the task executor), else enqueued.
    func onLoop(_ body: @escaping @Sendable () -> Void) {
        if loop.inEventLoop {
            body()
        } else {
            loop.execute(body)
        }
    }

    /// `onLoop` for a handler's response without forming a closure when
    /// already on the loop (nearly always): the closure's context would be
    /// a heap allocation for every request.
    func respondOnLoop(_ response: HTTPResponse, to head: RequestHead, requestID: String, keepAlive: Bool,
                       terms: ExchangeTerms) {
        if loop.inEventLoop {
            respond(response, to: head, requestID: requestID, keepAlive: keepAlive, terms: terms)
        } else {
            loop.execute { self.respond(response, to: head, requestID: requestID, keepAlive: keepAlive, terms: terms) }
        }
    }

    /// Runs `body` on the connection's loop and returns its result, for
    /// callers (a body writer) that may be elsewhere.
    func performOnLoop<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        if loop.inEventLoop {
            return try body()
        }
        return try await withCheckedThrowingContinuation { continuation in
            loop.execute { continuation.resume(with: Result { try body() }) }
        }
    }

    // MARK: Responses

    func respond(_ response: HTTPResponse, to head: RequestHead, requestID: String, keepAlive: Bool,
                 terms: ExchangeTerms) {
        guard machine.phase != .closed else { return }
        let (response, fields) = core.policies.finish(response, terms: terms)
        let keepAlive = keepAlive && !machine.closeAfterOutput && !core.isDraining.load(ordering: .relaxed)
        if case .stream(let produce) = response.body, head.method != .head, !response.status.forbidsContent {
            // Counted before its head can reach the client.
            let core = self.core
            core.openStreams.add(1, ordering: .relaxed)
            let chunked = head.version == .http1_1
            output.append(ResponseHead.serialize(status: response.status, headers: response.headers,
                                                 framing: chunked ? .chunked : .closeDelimited,
                                                 keepAlive: keepAlive && chunked, echoKeepAlive: false,
                                                 requestID: requestID, fields: fields))
            machine.responseBegan(keepAlive: keepAlive && chunked)
            exchange?.status = response.status
            flush()
            let writer = HTTPBodyWriter(connection: self, chunked: chunked)
            let logger = core.logger
            streamTask = Task.immediate(executorPreference: loop) { [self] in
                defer { core.openStreams.subtract(1, ordering: .relaxed) }
                do {
                    try await produce(writer)
                } catch is HTTPBodyWriter.WriterError {
                    // The client went away; nothing to report.
                } catch {
                    logger.log(.warning, "stream_failed", [("request_id", requestID), ("error", String(describing: error))])
                }
                onLoop { self.endStream(chunked: chunked) }
            }
            return
        }
        writeFinal(response, version: head.version, requestID: requestID, keepAlive: keepAlive,
                   isHead: head.method == .head, terms: terms, fields: fields)
    }

    /// Queues a complete response, then moves on to the next request (or to
    /// closing). The exchange policies finish it under `terms` (a new trace
    /// when there was no head) unless their `fields` say that was done.
    func writeFinal(_ response: HTTPResponse, version: HTTPVersion, requestID: String, keepAlive: Bool,
                    isHead: Bool = false, terms: ExchangeTerms? = nil, fields: ExchangeFields? = nil) {
        guard machine.phase != .closed else { return }
        let (response, fields) = if let fields {
            (response, fields)
        } else {
            core.policies.finish(response, terms: terms ?? core.policies.begin(nil, peerHost: peerHost, ids: &loop.traceIDs))
        }
        ResponseHead.encodeComplete(response, version: version, requestID: requestID, fields: fields,
                                    keepAlive: keepAlive, isHead: isHead, into: &output)
        machine.responseBegan(keepAlive: keepAlive)
        if let observer = core.observer {
            var finished = exchange ?? ExchangeInProgress(method: nil, route: "", headers: HTTPFields(),
                                                          requestID: requestID, trace: nil, client: peerHost,
                                                          startedAt: MonotonicClock.nowNanoseconds())
            finished.status = response.status
            if !isHead, !response.status.forbidsContent, case .bytes(let body) = response.body {
                finished.bodyBytes = body.count
            }
            report(finished, to: observer)
        }
        completeResponse()
    }

    func endStream(chunked: Bool) {
        streamTask = nil
        if let observer = core.observer, let finished = exchange { report(finished, to: observer) }
        guard machine.phase != .closed else { return }
        if chunked { output.append(HTTPBodyWriter.lastChunk) }
        completeResponse()
    }

    private func completeResponse() {
        releaseBodyReservation()
        machine.responseComplete(draining: core.isDraining.load(ordering: .relaxed), now: MonotonicClock.nowNanoseconds())
        if machine.phase == .lingering {
            pending = nil
        } else {
            input.shrinkIfEmpty()
        }
        // A response answered while parsing (a handler that did not
        // suspend): the parse loop goes on to the next request and writes
        // the responses together. Otherwise: the next pipelined request,
        // if one is buffered, then the output.
        if processing {
            publish()
        } else {
            processInput()
        }
    }

    func report(_ finished: ExchangeInProgress, to observer: ExchangeObserver) {
        exchange = nil
        observer(CompletedExchange(method: finished.method, route: finished.route, status: finished.status,
                                   bodyBytes: finished.bodyBytes,
                                   durationNanoseconds: MonotonicClock.nowNanoseconds() - finished.startedAt,
                                   requestID: finished.requestID, trace: finished.trace,
                                   requestHeaders: finished.headers,
                                   remoteAddress: remoteAddress, clientAddress: finished.client,
                                   eventLoop: loop.index))
    }

    // MARK: Writing

    /// Appends one chunk of a streamed body; returns whether the writer
    /// should wait for the socket to drain (backpressure).
    func writeChunk(_ bytes: [UInt8], chunked: Bool) throws(HTTPBodyWriter.WriterError) -> Bool {
        guard machine.phase != .closed else { throw .connectionClosed }
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
        if machine.phase == .closed {
            continuation.resume(throwing: HTTPBodyWriter.WriterError.connectionClosed)
        } else if output.pendingBytes <= core.configuration.outputHighWatermark {
            continuation.resume()
        } else {
            drainWaiters.append(continuation)
        }
    }

    /// `flush` when the loop's batch ends (`EventLoop` says why), or now
    /// outside a batch or with nothing to write.
    func flushAfterBatch() {
        guard loop.inBatch, !output.isEmpty, machine.phase != .closed else { return flush() }
        guard !flushAwaitsBatchEnd else { return }
        flushAwaitsBatchEnd = true
        loop.flushAfterBatch(self)
    }

    func batchEnded() {
        flushAwaitsBatchEnd = false
        flush()
    }

    func flush() {
        guard machine.phase != .closed else { return }
        if !output.isEmpty {
            let queued = output.pendingBytes
            switch output.flush(to: fd) {
            case .flushed:
                break
            case .wouldBlock:
                perform(machine.writeBlocked(overHighWatermark: output.pendingBytes > core.configuration.outputHighWatermark,
                                             progressed: output.pendingBytes < queued,
                                             now: MonotonicClock.nowNanoseconds()))
                return
            case .failed:
                close()
                return
            }
        }
        if !drainWaiters.isEmpty {
            let waiters = drainWaiters
            drainWaiters = []
            for waiter in waiters { waiter.resume() }
        }
        perform(machine.outputDrained(now: MonotonicClock.nowNanoseconds()))
    }
}
